// Helpers for the server regression tests: a `nicbench serve` child on a free port, raw control
// connections for hostile clients, and a normal test that must keep completing meanwhile.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench::regress {

using testing::ServeChild;
using testing::StartServe;

// A TCP connection to 127.0.0.1:port; -1 on failure.
inline int ConnectRaw(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

inline constexpr char kCookie[] = "abcdefghijklmnopqrstuvwxyz2345672345";  // 36 chars

inline bool SendAll(int fd, const void* data, size_t size) {
  return send(fd, data, size, MSG_NOSIGNAL) == static_cast<ssize_t>(size);
}

// Waits (at most `limit_ms`, a safety net) until the server closes `fd`; true on EOF/reset.
inline bool ServerCloses(int fd, int limit_ms = 30000) {
  char buf[256];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, limit_ms) <= 0) return false;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return true;
  }
}

// A normal test against the server: `nicbench run` with -J; returns the parsed document.
inline nlohmann::json NormalTest(int port, const std::vector<std::string>& extra = {"-n", "1M"}) {
  std::vector<std::string> args = {"run", "127.0.0.1", "-p", std::to_string(port), "-J"};
  args.insert(args.end(), extra.begin(), extra.end());
  testing::ProcessResult r = testing::RunNicbench(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out;
  return doc;
}

inline uint64_t SumBytes(const nlohmann::json& doc, const char* which) {
  return doc["end"][which]["bytes"].get<uint64_t>();
}

}  // namespace nicbench::regress
