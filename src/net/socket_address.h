// SocketAddress: an IPv4 or IPv6 socket address (sockaddr_storage + length) and name
// resolution through getaddrinfo. Plain value type; Resolve is thread-safe (getaddrinfo is
// MT-safe in glibc).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace nicbench::net {

enum class Family { kAny, kIpv4, kIpv6 };

class SocketAddress {
 public:
  SocketAddress() = default;
  // REQUIRES: addr is AF_INET or AF_INET6 and length fits sockaddr_storage.
  SocketAddress(const sockaddr* addr, socklen_t length);

  // 127.0.0.1 / ::1 style numeric addresses only (no DNS); for tests and wildcard binds.
  static Result<SocketAddress> FromNumeric(const std::string& host, uint16_t port);
  // The address a socket is bound to (getsockname) or connected to (getpeername).
  static Result<SocketAddress> Local(int fd);
  static Result<SocketAddress> Peer(int fd);

  int family() const { return storage_.ss_family; }  // AF_INET, AF_INET6, or AF_UNSPEC if empty
  bool empty() const { return length_ == 0; }
  uint16_t port() const;
  void set_port(uint16_t port);
  const sockaddr* addr() const { return reinterpret_cast<const sockaddr*>(&storage_); }
  socklen_t length() const { return length_; }

  std::string HostString() const;  // "127.0.0.1", "::1"
  std::string ToString() const;    // "127.0.0.1:5201", "[::1]:5201"

 private:
  sockaddr_storage storage_{};
  socklen_t length_ = 0;
};

// getaddrinfo for a stream or datagram socket. host may be a name or a numeric address; an
// empty host gives the wildcard addresses for binding (AI_PASSIVE). Results keep
// getaddrinfo's order (RFC 6724 preference). Fails if nothing matches the family.
Result<std::vector<SocketAddress>> Resolve(const std::string& host, uint16_t port,
                                           Family family = Family::kAny,
                                           int socket_type = SOCK_STREAM);

}  // namespace nicbench::net
