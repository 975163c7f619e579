#include "cli/auth_options.h"

#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <fmt/format.h>

#include "base/units.h"
#include "cli/option_tables.h"
#include "protocol/authenticator.h"

namespace nicbench::cli {
namespace {

constexpr const char* kPasswordVariable = "IPERF3_PASSWORD";

// Reads one line from the terminal with echo off; the terminal's mode is restored before
// returning. Nothing when stdin is not a terminal.
Result<protocol::Secret> PromptPassword() {
  if (!isatty(STDIN_FILENO)) {
    return Fail(
        fmt::format("--username needs a password: set {} (stdin is not a terminal to ask on)",
                    kPasswordVariable));
  }
  termios old_mode{};
  if (tcgetattr(STDIN_FILENO, &old_mode) != 0) return FailErrno("reading the terminal's mode");
  termios quiet = old_mode;
  quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) != 0) return FailErrno("turning echo off");
  std::fputs("Password: ", stderr);
  std::fflush(stderr);
  protocol::Secret line;
  std::string text;
  for (int c = std::fgetc(stdin); c != EOF && c != '\n'; c = std::fgetc(stdin)) {
    text += static_cast<char>(c);
  }
  line = protocol::Secret(std::move(text));
  (void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &old_mode);
  std::fputc('\n', stderr);
  if (!line.empty() && line.text().back() == '\r') {
    std::string trimmed = line.text();
    trimmed.pop_back();
    line = protocol::Secret(std::move(trimmed));
  }
  return line;
}

Result<protocol::Secret> ReadPassword() {
  if (const char* value = std::getenv(kPasswordVariable)) return protocol::Secret(value);
  return PromptPassword();
}

// --max-tests-per-subnet and the prefix lengths that say what a subnet is.
Status ApplySubnetArgs(const ServeAuthArgs& a, engine::ServerConfig& config) {
  if (a.max_per_subnet.empty()) {
    if (!a.subnet_v4.empty() || !a.subnet_v6.empty()) {
      return Fail("--subnet-prefix-v4 and --subnet-prefix-v6 need --max-tests-per-subnet");
    }
    return Ok();
  }
  auto n = ParseInRange("--max-tests-per-subnet", a.max_per_subnet, Range{1, 1024});
  if (!n) return tl::unexpected(n.error());
  config.max_tests_per_subnet = static_cast<int>(*n);
  const struct {
    const char* name;
    const std::string& text;
    uint64_t max;
    int* out;
  } prefixes[] = {{"--subnet-prefix-v4", a.subnet_v4, 32, &config.subnet_prefix_v4},
                  {"--subnet-prefix-v6", a.subnet_v6, 128, &config.subnet_prefix_v6}};
  for (const auto& p : prefixes) {
    if (p.text.empty()) continue;
    auto bits = ParseUnsigned(p.text);
    if (!bits || *bits < 1 || *bits > p.max) {
      return Fail(
          fmt::format("{}: expected a prefix length 1..{}, got '{}'", p.name, p.max, p.text));
    }
    *p.out = static_cast<int>(*bits);
  }
  return Ok();
}

}  // namespace

void AddServeAuthOptions(CLI::App& app, ServeAuthArgs& a) { AddRows(app, a, ServeAuthRows()); }

void AddRunAuthOptions(CLI::App& app, RunAuthArgs& a) { AddRows(app, a, RunAuthRows()); }

Status ApplyServerKey(const RunAuthArgs& a, engine::ClientConfig& config) {
  if (a.server_key.empty()) return Ok();
  auto key = protocol::RsaKey::LoadPublic(a.server_key);
  if (!key) return Fail("--server-key: " + key.error().ToString());
  config.server_key = std::make_shared<const protocol::RsaKey>(std::move(*key));
  config.server_key_path = a.server_key;
  return Ok();
}

Status ApplyServeAuthArgs(const ServeAuthArgs& a, engine::ServerConfig& config) {
  for (const std::string& cidr : a.allow) {
    if (auto s = config.access.Allow(cidr); !s) return Fail("--allow " + s.error().message);
  }
  for (const std::string& cidr : a.deny) {
    if (auto s = config.access.Deny(cidr); !s) return Fail("--deny " + s.error().message);
  }
  if (auto s = ApplySubnetArgs(a, config); !s) return s;
  if (a.private_key.empty() != a.users.empty()) {
    return Fail("--rsa-private-key-path and --authorized-users-path go together");
  }
  if (a.private_key.empty()) {
    if (!a.skew.empty() || a.pkcs1) {
      return Fail("--time-skew-threshold and --use-pkcs1-padding need --rsa-private-key-path");
    }
    return Ok();
  }
  protocol::AuthConfig auth;
  if (!a.skew.empty()) {
    auto seconds = ParseUnsigned(a.skew);
    if (!seconds || *seconds == 0 || *seconds > 86400) {
      return Fail("--time-skew-threshold: expected seconds 1..86400");
    }
    auth.skew_threshold = std::chrono::seconds(*seconds);
  }
  auto key = protocol::RsaKey::LoadPrivate(a.private_key);
  if (!key) return Fail("--rsa-private-key-path: " + key.error().ToString());
  config.identity_key = std::make_shared<const protocol::RsaKey>(*key);
  auth.private_key = std::move(*key);
  auto users = protocol::AuthorizedUsers::Load(a.users);
  if (!users) return Fail("--authorized-users-path: " + users.error().ToString());
  auth.users = std::move(*users);
  auth.accept_pkcs1 = a.pkcs1;
  config.authenticator = std::make_shared<protocol::Authenticator>(std::move(auth));
  return Ok();
}

Result<std::shared_ptr<const engine::ClientAuth>> MakeClientAuth(const RunAuthArgs& a) {
  if (a.username.empty()) {
    if (!a.public_key.empty() || a.pkcs1) {
      return Fail("--rsa-public-key-path and --use-pkcs1-padding need --username");
    }
    return std::shared_ptr<const engine::ClientAuth>();
  }
  if (a.public_key.empty()) return Fail("--username needs --rsa-public-key-path");
  auto key = protocol::RsaKey::LoadPublic(a.public_key);
  if (!key) return Fail("--rsa-public-key-path: " + key.error().ToString());
  auto password = ReadPassword();
  if (!password) return tl::unexpected(password.error());
  auto auth = std::make_shared<engine::ClientAuth>();
  auth->username = a.username;
  auth->password = std::move(*password);
  auth->server_key = std::move(*key);
  auth->padding = a.pkcs1 ? protocol::RsaPadding::kPkcs1 : protocol::RsaPadding::kOaep;
  // One token now, so a password the server could never read fails before connecting.
  auto trial = protocol::EncodeAuthToken(auth->username, auth->password, auth->server_key,
                                         auth->padding, static_cast<int64_t>(std::time(nullptr)));
  if (!trial) return Fail("--username: " + trial.error().message);
  return std::shared_ptr<const engine::ClientAuth>(std::move(auth));
}

}  // namespace nicbench::cli
