// The few socket helpers classic ttcp needs: an owning fd, address resolution for -4/-6, and
// numeric address text. Kept inside the ttcp layer so ttcp stays as plain as the original.
// Failures are Result values whose message is the original's err() string ("bad hostname",
// "setsockopt: nodelay", ...), with errno captured at the call. Thread-compatible.
#pragma once

#include <sys/socket.h>

#include <string>

#include "base/result.h"
#include "ttcp/options.h"

namespace nicbench::ttcp {

// Owns one file descriptor; closes it on destruction.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& other) noexcept : fd_(other.Release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// A socket address of either family.
struct SockAddr {
  sockaddr_storage storage{};
  socklen_t length = 0;

  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  sockaddr* get() { return reinterpret_cast<sockaddr*>(&storage); }
  int family() const { return storage.ss_family; }
};

// The transmitter's peer. kAuto tries IPv4 first (the original resolved IPv4 only) and uses
// IPv6 only when the host has no IPv4 address. Error message: "bad hostname: <reason>".
Result<SockAddr> ResolvePeer(const std::string& host, int port, Family family);

// The receiver's wildcard address: 0.0.0.0 unless -6, then :: (which also accepts IPv4 peers
// as ::ffff:a.b.c.d on a default Linux, net.ipv6.bindv6only=0).
SockAddr WildcardAddress(int port, Family family);

// Numeric host text: dotted quad for IPv4, RFC 5952 text for IPv6.
std::string NumericHost(const SockAddr& address);

// setsockopt(fd, level, name, value); on failure an Error with `what` and errno.
Status SetIntOption(int fd, int level, int name, int value, const char* what);

}  // namespace nicbench::ttcp
