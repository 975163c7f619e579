// The server's check of an iperf3 authentication token (docs/security.md): decrypt it
// (auth_token.h), refuse it when its time is more than the skew threshold away from ours or when
// the same token was accepted before within the window (iperf3 does not check replays; we do),
// then check the user and password (authorized_users.h). Every refusal is told to the client
// alike (iperf3's IEAUTHTEST); the reason is for the server's log and never holds a secret.
//
// Thread safety: Verify may be called from several tests' threads at once (it locks).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "base/result.h"
#include "protocol/auth_token.h"
#include "protocol/authorized_users.h"

namespace nicbench::protocol {

struct AuthConfig {
  RsaKey private_key;
  AuthorizedUsers users;
  std::chrono::seconds skew_threshold{10};  // iperf3's --time-skew-threshold default
  bool accept_pkcs1 = false;                // --use-pkcs1-padding: PKCS#1 v1.5 tokens too
};

class Authenticator {
 public:
  explicit Authenticator(AuthConfig config) : config_(std::move(config)) {}

  // The user name when the token is good at `now_seconds` (Unix time); else why not, as
  // "unknown user 'bob'", "wrong password for user 'alice'", "stale token: ...",
  // "replayed token of user 'alice'", or the decoding step that failed.
  Result<std::string> Verify(std::string_view token, int64_t now_seconds);

  // Tokens accepted within the window and still remembered (tests).
  size_t remembered() const;

 private:
  using Digest = std::string;  // SHA-256 of the token's text
  // Forgets the tokens whose time is out of the window at `now`: they are refused as stale.
  void Expire(int64_t now_seconds);  // REQUIRES: mutex_ held

  AuthConfig config_;
  mutable std::mutex mutex_;
  std::map<Digest, int64_t> accepted_;  // token digest -> its time
};

// A name from a peer made safe to log: printable ASCII only, at most 64 characters.
std::string LoggableName(std::string_view name);

}  // namespace nicbench::protocol
