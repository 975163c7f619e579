#include "net/socket_address.h"

#include <arpa/inet.h>
#include <netdb.h>

#include <cstring>

#include "base/check.h"

namespace nicbench::net {

SocketAddress::SocketAddress(const sockaddr* addr, socklen_t length) {
  NB_CHECK(addr->sa_family == AF_INET || addr->sa_family == AF_INET6);
  NB_CHECK(length <= sizeof(storage_));
  std::memcpy(&storage_, addr, length);
  length_ = length;
}

Result<SocketAddress> SocketAddress::FromNumeric(const std::string& host, uint16_t port) {
  sockaddr_in v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(port);
    return SocketAddress(reinterpret_cast<const sockaddr*>(&v4), sizeof(v4));
  }
  sockaddr_in6 v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(port);
    return SocketAddress(reinterpret_cast<const sockaddr*>(&v6), sizeof(v6));
  }
  return Fail("not a numeric IPv4 or IPv6 address: '" + host + "'");
}

Result<SocketAddress> SocketAddress::Local(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return FailErrno("getsockname");
  if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
    return Fail("getsockname: not an IP socket");
  return SocketAddress(reinterpret_cast<const sockaddr*>(&ss), len);
}

Result<SocketAddress> SocketAddress::Peer(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return FailErrno("getpeername");
  if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
    return Fail("getpeername: not an IP socket");
  return SocketAddress(reinterpret_cast<const sockaddr*>(&ss), len);
}

uint16_t SocketAddress::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage_)->sin_port);
  if (family() == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_port);
  return 0;
}

void SocketAddress::set_port(uint16_t port) {
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&storage_)->sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&storage_)->sin6_port = htons(port);
}

std::string SocketAddress::HostString() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr, text,
              sizeof(text));
  } else if (family() == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_addr, text,
              sizeof(text));
  }
  return text;
}

std::string SocketAddress::ToString() const {
  if (family() == AF_INET6) return "[" + HostString() + "]:" + std::to_string(port());
  if (family() == AF_INET) return HostString() + ":" + std::to_string(port());
  return "(no address)";
}

Result<std::vector<SocketAddress>> Resolve(const std::string& host, uint16_t port, Family family,
                                           int socket_type) {
  addrinfo hints{};
  hints.ai_family = family == Family::kIpv4   ? AF_INET
                    : family == Family::kIpv6 ? AF_INET6
                                              : AF_UNSPEC;
  hints.ai_socktype = socket_type;
  hints.ai_flags = AI_NUMERICSERV | (host.empty() ? AI_PASSIVE : 0);
  const std::string service = std::to_string(port);
  addrinfo* list = nullptr;
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &list);
  if (rc == EAI_SYSTEM) return FailErrno("resolve '" + host + "'");
  if (rc != 0) return Fail("resolve '" + host + "': " + gai_strerror(rc));
  std::vector<SocketAddress> out;
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
      out.emplace_back(ai->ai_addr, ai->ai_addrlen);
  }
  freeaddrinfo(list);
  if (out.empty()) return Fail("resolve '" + host + "': no address of the requested family");
  return out;
}

}  // namespace nicbench::net
