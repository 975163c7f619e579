// iperf3's authorized-users file (docs/security.md): one user a line, "username,HASH" where HASH
// is SHA-256 of "{username}password" as 64 hex digits; lines starting with '#' and empty lines
// are skipped. iperf3 skips any line without a comma too; we refuse a file with a line that is
// not one of these, so a typo is found when the server starts, not when a user is refused.
//
// Thread safety: immutable after Load; Check may run on several threads at once.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"
#include "protocol/auth_token.h"

namespace nicbench::protocol {

class AuthorizedUsers {
 public:
  enum class Verdict { kOk, kUnknownUser, kWrongPassword };

  // Errors name the file and line ("users.csv:3: ...") and never echo a hash.
  static Result<AuthorizedUsers> Load(const std::string& path);
  // The same on text in memory; `name` stands for the path in errors.
  static Result<AuthorizedUsers> Parse(std::string_view text, std::string_view name);

  // Hashes "{username}password" and compares it with the stored hash in constant time
  // (CRYPTO_memcmp). An unknown user is compared against a dummy hash, so the time taken does
  // not tell whether the user exists.
  Verdict Check(std::string_view username, const Secret& password) const;
  size_t size() const { return users_.size(); }

 private:
  using Digest = std::array<unsigned char, 32>;
  std::map<std::string, Digest, std::less<>> users_;
};

}  // namespace nicbench::protocol
