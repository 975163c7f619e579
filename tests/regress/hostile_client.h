// Hostile peers for the server regression tests (issue: one hostile peer must not hurt anyone
// else): raw control connections from a chosen loopback source address, a test opened by hand
// up to its parameters, data streams that never read, UDP datagrams from another address, and
// the server's resource figures (/proc/PID: RSS, descriptors, threads, CPU time) to compare
// against the baseline. Plain sockets so each test can misbehave exactly as it wants.
#pragma once

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "regress/server_test_util.h"
#include "support/wait.h"

namespace nicbench::regress {

// Under AddressSanitizer freed memory waits in a quarantine (256 MiB by default) and every
// process carries shadow memory, so RSS figures get a wider margin there; descriptors and
// threads are checked the same way in every build. The quarantine alone is half the margin, and
// shadow and allocator caches vary from build to build (a client flooded with live samples
// peaked at 586 MiB in one sanitizer build, at 600 in the next): the bound on growth is the
// optimized build's, where the margin is 0.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr long kRssMarginKb = 640 * 1024;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr long kRssMarginKb = 640 * 1024;
#else
inline constexpr long kRssMarginKb = 0;
#endif
#else
inline constexpr long kRssMarginKb = 0;
#endif

// The server's resources now, from /proc/PID.
struct ProcStats {
  long rss_kb = 0;
  int fds = 0;
  int threads = 0;
  double cpu_seconds = 0;  // user + system
};

inline ProcStats ReadProcStats(pid_t pid) {
  ProcStats s;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") status >> s.rss_kb;
    if (key == "Threads:") status >> s.threads;
  }
  if (DIR* dir = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str())) {
    while (dirent* e = readdir(dir)) {
      if (e->d_name[0] != '.') ++s.fds;
    }
    closedir(dir);
  }
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  // Fields after the command (which may hold spaces): state is field 3, utime 14, stime 15.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  s.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return s;
}

inline std::string Describe(const ProcStats& s) {
  return "rss " + std::to_string(s.rss_kb / 1024) + " MiB, " + std::to_string(s.fds) + " fds, " +
         std::to_string(s.threads) + " threads, cpu " + std::to_string(s.cpu_seconds) + " s";
}

// Waits (up to `limit`, a safety net) until the server is back to its baseline: no more
// descriptors and threads than then, RSS at most `rss_slack_kb` above. Returns the last figures.
inline ProcStats WaitForBaseline(pid_t pid, const ProcStats& baseline,
                                 long rss_slack_kb = 16384 + kRssMarginKb,
                                 std::chrono::seconds limit = std::chrono::seconds(30)) {
  ProcStats now;
  testing::WaitUntil(
      [&] {
        now = ReadProcStats(pid);
        return now.fds <= baseline.fds && now.threads <= baseline.threads &&
               now.rss_kb <= baseline.rss_kb + rss_slack_kb;
      },
      limit, std::chrono::milliseconds(100));
  return now;
}

inline void ExpectBackToBaseline(pid_t pid, const ProcStats& baseline) {
  ProcStats after = WaitForBaseline(pid, baseline);
  EXPECT_LE(after.fds, baseline.fds)
      << "baseline " << Describe(baseline) << "; after " << Describe(after);
  EXPECT_LE(after.threads, baseline.threads) << Describe(after);
  EXPECT_LE(after.rss_kb, baseline.rss_kb + 16384 + kRssMarginKb) << Describe(after);
}

inline sockaddr_in Loopback(const std::string& ip, int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, ip.c_str(), &addr.sin_addr);
  return addr;
}

// A TCP listener on 127.0.0.1 at a port the kernel picks (written to *port): a fake peer.
inline int ListenLoopback(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = Loopback("127.0.0.1", 0);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  listen(fd, 16);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

// A TCP connection to 127.0.0.1:port from `source` (any 127/8 address); -1 on failure.
inline int ConnectFrom(const std::string& source, int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in local = Loopback(source, 0);
  sockaddr_in server = Loopback("127.0.0.1", port);
  if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// A UDP socket bound to `source`, port 0.
inline int UdpFrom(const std::string& source) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in local = Loopback(source, 0);
  if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// A valid cookie (36 base32 characters + NUL) that differs for each `n`.
inline std::string MakeCookie(int n) {
  std::string cookie(kCookie, 36);
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  for (int i = 0; i < 4; ++i) {
    cookie[static_cast<size_t>(i)] = alphabet[static_cast<size_t>(n % 32)];
    n /= 32;
  }
  cookie.push_back('\0');
  return cookie;
}

// The next state byte, or -1000 on EOF/timeout.
inline int ReadStateByte(int fd, int limit_ms = 20000) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, limit_ms) <= 0) return -1000;
  signed char state = 0;
  if (recv(fd, &state, 1, 0) != 1) return -1000;
  return state;
}

// Reads a big-endian int32 (the SERVER_ERROR tail); -1 on failure.
inline int ReadInt32(int fd) {
  unsigned char b[4];
  if (recv(fd, b, 4, MSG_WAITALL) != 4) return -1;
  return (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3];
}

inline bool SendJsonText(int fd, const std::string& text) {
  const uint32_t n = static_cast<uint32_t>(text.size());
  const unsigned char len[4] = {static_cast<unsigned char>(n >> 24),
                                static_cast<unsigned char>(n >> 16),
                                static_cast<unsigned char>(n >> 8), static_cast<unsigned char>(n)};
  return SendAll(fd, len, 4) && SendAll(fd, text.data(), text.size());
}

// A test opened by hand: control connection from `source`, cookie, PARAM_EXCHANGE read,
// `params` sent. Returns the control fd (the next byte is the server's answer), -1 on failure.
inline int OpenTest(int port, const std::string& cookie, const std::string& params,
                    const std::string& source = "127.0.0.1") {
  int fd = ConnectFrom(source, port);
  if (fd < 0) return -1;
  if (!SendAll(fd, cookie.data(), cookie.size()) || ReadStateByte(fd) != 9 ||
      !SendJsonText(fd, params)) {
    close(fd);
    return -1;
  }
  return fd;
}

// `count` data streams of the test with `cookie`, from `source`; they never read.
inline std::vector<int> OpenStreams(int port, const std::string& cookie, int count,
                                    const std::string& source = "127.0.0.1") {
  std::vector<int> fds;
  for (int i = 0; i < count; ++i) {
    int fd = ConnectFrom(source, port);
    if (fd < 0) break;
    // The smallest receive buffer, so the server's sends stall at once.
    const int small = 4096;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    if (!SendAll(fd, cookie.data(), cookie.size())) {
      close(fd);
      break;
    }
    fds.push_back(fd);
  }
  return fds;
}

inline void CloseAll(std::vector<int>& fds) {
  for (int fd : fds) close(fd);
  fds.clear();
}

// Lines of `text` containing `needle`.
inline int CountLines(const std::string& text, const std::string& needle) {
  int n = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(needle) != std::string::npos) ++n;
  }
  return n;
}

}  // namespace nicbench::regress
