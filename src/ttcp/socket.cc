#include "ttcp/socket.h"

#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstring>

namespace nicbench::ttcp {
namespace {

Result<SockAddr> ResolveIn(const std::string& host, int port, int family) {
  addrinfo hints{};
  hints.ai_family = family;
  hints.ai_socktype = SOCK_STREAM;  // any type; only the address is used
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (rc != 0) {
    // EAI_SYSTEM carries its reason in errno; the others only in gai_strerror.
    int saved = rc == EAI_SYSTEM ? errno : 0;
    return Fail(std::string("bad hostname: ") + gai_strerror(rc), saved);
  }
  SockAddr out;
  std::memcpy(&out.storage, found->ai_addr, found->ai_addrlen);
  out.length = found->ai_addrlen;
  freeaddrinfo(found);
  return out;
}

}  // namespace

Fd::~Fd() {
  if (fd_ >= 0) close(fd_);
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.Release();
  }
  return *this;
}

Result<SockAddr> ResolvePeer(const std::string& host, int port, Family family) {
  switch (family) {
    case Family::kInet: return ResolveIn(host, port, AF_INET);
    case Family::kInet6: return ResolveIn(host, port, AF_INET6);
    case Family::kAuto: break;
  }
  auto v4 = ResolveIn(host, port, AF_INET);
  if (v4) return v4;
  auto v6 = ResolveIn(host, port, AF_INET6);
  return v6 ? v6 : v4;
}

SockAddr WildcardAddress(int port, Family family) {
  SockAddr out;
  if (family == Family::kInet6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&out.storage);
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_any;
    a->sin6_port = htons(static_cast<uint16_t>(port));
    out.length = sizeof(sockaddr_in6);
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&out.storage);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_ANY);
    a->sin_port = htons(static_cast<uint16_t>(port));
    out.length = sizeof(sockaddr_in);
  }
  return out;
}

std::string NumericHost(const SockAddr& address) {
  char text[NI_MAXHOST] = "?";
  getnameinfo(address.get(), address.length, text, sizeof text, nullptr, 0, NI_NUMERICHOST);
  return text;
}

Status SetIntOption(int fd, int level, int name, int value, const char* what) {
  if (setsockopt(fd, level, name, &value, sizeof value) < 0) return FailErrno(what);
  return Ok();
}

}  // namespace nicbench::ttcp
