// The options of iperf3 authentication and access control (docs/security.md):
//   serve --rsa-private-key-path FILE --authorized-users-path FILE [--time-skew-threshold S]
//         [--use-pkcs1-padding] [--allow CIDR]... [--deny CIDR]...
//         [--max-tests-per-subnet N [--subnet-prefix-v4 BITS] [--subnet-prefix-v6 BITS]]
//   run   --username USER --rsa-public-key-path FILE [--use-pkcs1-padding] [--server-key FILE]
// The client's password comes from IPERF3_PASSWORD or, on a terminal, a prompt without echo;
// never from an argument (it would show in `ps`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "engine/client.h"
#include "engine/server.h"

namespace nicbench::cli {

struct ServeAuthArgs {
  std::string private_key, users, skew;
  bool pkcs1 = false;
  std::vector<std::string> allow, deny;
  // --max-tests-per-subnet, --subnet-prefix-v4, --subnet-prefix-v6
  std::string max_per_subnet, subnet_v4, subnet_v6;
};

struct RunAuthArgs {
  std::string username, public_key;
  std::string server_key;  // --server-key FILE
  bool pkcs1 = false;
};

void AddServeAuthOptions(CLI::App& app, ServeAuthArgs& args);
void AddRunAuthOptions(CLI::App& app, RunAuthArgs& args);

// Reads the key and the users file, parses the CIDRs; every error names the option and the
// file or value.
Status ApplyServeAuthArgs(const ServeAuthArgs& args, engine::ServerConfig& config);

// Null when no --username was given. Reads the public key and the password (IPERF3_PASSWORD, or
// the prompt when stdin is a terminal), and makes one token to find a problem before connecting.
Result<std::shared_ptr<const engine::ClientAuth>> MakeClientAuth(const RunAuthArgs& args);

// --server-key FILE: the server's public key the client pins (ClientConfig::server_key); an
// error names the file. Nothing without the option.
Status ApplyServerKey(const RunAuthArgs& args, engine::ClientConfig& config);

}  // namespace nicbench::cli
