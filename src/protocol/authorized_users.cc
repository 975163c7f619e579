#include "protocol/authorized_users.h"

#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

namespace nicbench::protocol {
namespace {

constexpr size_t kMaxFileBytes = 16 << 20;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool ValidName(std::string_view name) {
  if (name.empty() || name.size() > kMaxCredentialBytes) return false;
  for (char c : name) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7F) return false;
  }
  return true;
}

// The line's problem, or nothing; fills `name` and `digest` when it is a user's line.
std::optional<std::string> ParseLine(std::string_view line, std::string* name,
                                     std::array<unsigned char, 32>* digest) {
  const size_t comma = line.find(',');
  if (comma == std::string_view::npos) return "expected username,SHA256HEX";
  *name = std::string(line.substr(0, comma));
  std::string_view hex = line.substr(comma + 1);
  if (!ValidName(*name)) return "the user name is empty or holds white space or control bytes";
  if (hex.size() != 64) {
    return fmt::format("the hash has {} characters; SHA-256 in hex has 64", hex.size());
  }
  for (size_t i = 0; i < 32; ++i) {
    const int high = HexValue(hex[2 * i]);
    const int low = HexValue(hex[2 * i + 1]);
    if (high < 0 || low < 0) return "the hash holds a character that is not a hex digit";
    (*digest)[i] = static_cast<unsigned char>(high * 16 + low);
  }
  return std::nullopt;
}

std::array<unsigned char, 32> Sha256Salted(std::string_view username, const Secret& password) {
  Secret salted(fmt::format("{{{}}}{}", username, password.text()));
  std::array<unsigned char, 32> digest{};
  unsigned int length = 0;
  EVP_Digest(salted.text().data(), salted.text().size(), digest.data(), &length, EVP_sha256(),
             nullptr);
  return digest;
}

}  // namespace

Result<AuthorizedUsers> AuthorizedUsers::Parse(std::string_view text, std::string_view name) {
  AuthorizedUsers out;
  size_t number = 0;
  while (!text.empty()) {
    ++number;
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    std::string user;
    Digest digest{};
    if (auto problem = ParseLine(line, &user, &digest)) {
      return Fail(fmt::format("authorized users file {}:{}: {}", name, number, *problem));
    }
    if (!out.users_.emplace(user, digest).second) {
      return Fail(fmt::format("authorized users file {}:{}: user '{}' is listed twice", name,
                              number, user));
    }
  }
  if (out.users_.empty()) return Fail(fmt::format("authorized users file {} lists no user", name));
  return out;
}

Result<AuthorizedUsers> AuthorizedUsers::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(fmt::format("cannot open authorized users file {}", path), errno);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Fail(fmt::format("cannot read authorized users file {}", path), errno);
  if (text.str().size() > kMaxFileBytes) {
    return Fail(fmt::format("authorized users file {} is larger than 16 MiB", path));
  }
  return Parse(text.str(), path);
}

AuthorizedUsers::Verdict AuthorizedUsers::Check(std::string_view username,
                                                const Secret& password) const {
  static const Digest kDummy{};
  const Digest given = Sha256Salted(username, password);
  auto it = users_.find(username);
  const Digest& stored = it == users_.end() ? kDummy : it->second;
  const bool same = CRYPTO_memcmp(given.data(), stored.data(), given.size()) == 0;
  if (it == users_.end()) return Verdict::kUnknownUser;
  return same ? Verdict::kOk : Verdict::kWrongPassword;
}

std::string PasswordHashHex(std::string_view username, const Secret& password) {
  std::string hex;
  for (unsigned char byte : Sha256Salted(username, password)) hex += fmt::format("{:02x}", byte);
  return hex;
}

}  // namespace nicbench::protocol
