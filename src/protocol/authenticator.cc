#include "protocol/authenticator.h"

#include <iterator>

#include <fmt/format.h>
#include <openssl/evp.h>

namespace nicbench::protocol {
namespace {

// A bound on what the replay set holds: only good tokens enter it, so only authorized users
// can fill it, at most one a test. Beyond it the oldest are forgotten early.
constexpr size_t kMaxRemembered = 100000;

std::string Sha256(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

}  // namespace

std::string LoggableName(std::string_view name) {
  std::string out;
  for (char c : name.substr(0, 64)) {
    out += (c >= 0x21 && c <= 0x7E) ? c : '?';
  }
  if (name.size() > 64) out += "...";
  return out;
}

void Authenticator::Expire(int64_t now_seconds) {
  const int64_t window = config_.skew_threshold.count();
  for (auto it = accepted_.begin(); it != accepted_.end();) {
    const int64_t age = now_seconds - it->second;
    it = (age > window || age < -window) ? accepted_.erase(it) : std::next(it);
  }
  while (accepted_.size() >= kMaxRemembered) {
    auto oldest = accepted_.begin();
    for (auto it = accepted_.begin(); it != accepted_.end(); ++it) {
      if (it->second < oldest->second) oldest = it;
    }
    accepted_.erase(oldest);
  }
}

Result<std::string> Authenticator::Verify(std::string_view token, int64_t now_seconds) {
  auto credentials = DecodeAuthToken(token, config_.private_key, config_.accept_pkcs1);
  if (!credentials) return tl::unexpected(credentials.error());
  const std::string user = LoggableName(credentials->username);
  const int64_t skew = now_seconds - credentials->timestamp;
  const int64_t window = config_.skew_threshold.count();
  if (skew > window || skew < -window) {
    return Fail(
        fmt::format("stale token of user '{}': its time is {} s from ours, more than the "
                    "--time-skew-threshold of {} s",
                    user, skew, window));
  }
  const Digest digest = Sha256(token);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (accepted_.count(digest) != 0) {
      return Fail(fmt::format("replayed token of user '{}' (accepted once already)", user));
    }
  }
  switch (config_.users.Check(credentials->username, credentials->password)) {
    case AuthorizedUsers::Verdict::kUnknownUser:
      return Fail(fmt::format("unknown user '{}'", user));
    case AuthorizedUsers::Verdict::kWrongPassword:
      return Fail(fmt::format("wrong password for user '{}'", user));
    case AuthorizedUsers::Verdict::kOk: break;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  Expire(now_seconds);
  // Two tests racing with one token: only the first to get here passes.
  if (!accepted_.emplace(digest, credentials->timestamp).second) {
    return Fail(fmt::format("replayed token of user '{}' (accepted once already)", user));
  }
  return credentials->username;
}

size_t Authenticator::remembered() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return accepted_.size();
}

}  // namespace nicbench::protocol
