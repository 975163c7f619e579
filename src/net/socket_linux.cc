#include "net/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

namespace nicbench::net {
namespace {

Status SetInt(int fd, int level, int name, int value, const char* label) {
  if (setsockopt(fd, level, name, &value, sizeof(value)) != 0) {
    return FailErrno(std::string("setsockopt(") + label + "=" + std::to_string(value) + ")");
  }
  return Ok();
}

// `type` may carry SOCK_NONBLOCK.
Result<UniqueFd> NewSocket(int family, int type, bool mptcp = false) {
  const bool stream = (type & ~SOCK_NONBLOCK) == SOCK_STREAM;
  if (mptcp && stream) {
    int fd = ::socket(family, type | SOCK_CLOEXEC, IPPROTO_MPTCP);
    if (fd >= 0) return UniqueFd(fd);
    // EPROTONOSUPPORT without CONFIG_MPTCP, ENOPROTOOPT with net.mptcp.enabled = 0.
    if (errno == EPROTONOSUPPORT || errno == ENOPROTOOPT || errno == EINVAL) {
      return FailErrno(
          "socket(MPTCP): this kernel does not offer MPTCP (it needs "
          "CONFIG_MPTCP, Linux >= 5.6, and sysctl net.mptcp.enabled=1)");
    }
    return FailErrno("socket(MPTCP)");
  }
  int fd = ::socket(family, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return FailErrno(stream ? "socket(TCP)" : "socket(UDP)");
  return UniqueFd(fd);
}

// Resolves `bind_host`/`bind_port` in `family` and binds `fd` to it.
Status BindLocal(int fd, int family, const std::string& bind_host, uint16_t bind_port, int type) {
  if (bind_host.empty() && bind_port == 0) return Ok();
  auto addrs =
      Resolve(bind_host, bind_port, family == AF_INET6 ? Family::kIpv6 : Family::kIpv4, type);
  if (!addrs) return tl::unexpected(addrs.error());
  const SocketAddress& local = addrs->front();
  if (::bind(fd, local.addr(), local.length()) != 0) return FailErrno("bind " + local.ToString());
  return Ok();
}

Status WaitConnected(int fd, const SocketAddress& addr, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLOUT, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) return FailErrno("poll (connect " + addr.ToString() + ")");
  if (rc == 0)
    return Fail("connect " + addr.ToString() + ": timed out after " +
                    std::to_string(timeout.count()) + " ms",
                ETIMEDOUT);
  int err = 0;
  socklen_t len = sizeof(err);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
    return FailErrno("getsockopt(SO_ERROR)");
  if (err != 0) return Fail("connect " + addr.ToString(), err);
  return Ok();
}

// Sets "don't fragment" (path MTU discovery "do") for the socket's traffic of either family.
Status SetDontFragment(int fd, int family) {
  const int mode = IP_PMTUDISC_DO;
  if (family == AF_INET6) {
    if (auto s = SetInt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO, "IPV6_MTU_DISCOVER");
        !s) {
      return s;
    }
  }
  return SetInt(fd, IPPROTO_IP, IP_MTU_DISCOVER, mode, "IP_MTU_DISCOVER");
}

template <typename Keep>
void ApplyTcpOptions(int fd, const SocketOptions& o, Keep& keep) {
  if (o.mss != 0) keep(SetInt(fd, IPPROTO_TCP, TCP_MAXSEG, static_cast<int>(o.mss), "TCP_MAXSEG"));
  if (o.no_delay) keep(SetInt(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY"));
  if (!o.congestion.empty()) {
    if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, o.congestion.data(),
                   static_cast<socklen_t>(o.congestion.size())) != 0) {
      keep(FailErrno("setsockopt(TCP_CONGESTION=" + o.congestion + ")"));
    }
  }
}

// Device binding, the TCP user timeout and keepalive (iperf3's --bind-dev, --snd-timeout and
// --cntl-ka).
Status ApplyDeviceAndTimeouts(int fd, int socket_type, const SocketOptions& o) {
  if (!o.bind_device.empty()) {
    if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, o.bind_device.c_str(),
                   static_cast<socklen_t>(o.bind_device.size())) != 0) {
      return FailErrno("setsockopt(SO_BINDTODEVICE=" + o.bind_device + ")");
    }
  }
  if (socket_type != SOCK_STREAM) return Ok();
  if (o.user_timeout_ms != 0) {
    if (auto s = SetInt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, static_cast<int>(o.user_timeout_ms),
                        "TCP_USER_TIMEOUT");
        !s) {
      return s;
    }
  }
  if (!o.keepalive) return Ok();
  if (auto s = SetInt(fd, SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE"); !s) return s;
  const std::pair<int, int> knobs[] = {{TCP_KEEPIDLE, o.keepalive_idle_s},
                                       {TCP_KEEPINTVL, o.keepalive_interval_s},
                                       {TCP_KEEPCNT, o.keepalive_count}};
  for (const auto& [name, value] : knobs) {
    if (value == 0) continue;
    if (auto s = SetInt(fd, IPPROTO_TCP, name, value, "TCP_KEEPALIVE"); !s) return s;
  }
  return Ok();
}

// linux/in6.h's flow label request; that header cannot be included beside glibc's
// netinet/in.h, so the layout (stable since Linux 2.6) is repeated here.
struct FlowLabelRequest {
  in6_addr dst;
  uint32_t label;  // network order
  uint8_t action, share;
  uint16_t flags, expires, linger;
  uint32_t pad;
};
constexpr int kFlowLabelMgr = 32;       // IPV6_FLOWLABEL_MGR
constexpr int kFlowInfoSend = 33;       // IPV6_FLOWINFO_SEND
constexpr uint8_t kFlowGet = 0;         // IPV6_FL_A_GET
constexpr uint8_t kFlowShareAny = 255;  // IPV6_FL_S_ANY
constexpr uint16_t kFlowCreate = 1;     // IPV6_FL_F_CREATE

// Leases `label` for the destination and returns the address to connect to with it, as
// iperf3 -L does (the label rides in sin6_flowinfo).
Result<sockaddr_in6> WithFlowLabel(int fd, const SocketAddress& addr, uint32_t label) {
  sockaddr_in6 sin6{};
  std::memcpy(&sin6, addr.addr(), sizeof sin6);
  FlowLabelRequest req{};
  req.dst = sin6.sin6_addr;
  req.label = htonl(label & 0xFFFFF);
  req.action = kFlowGet;
  req.share = kFlowShareAny;
  req.flags = kFlowCreate;
  if (setsockopt(fd, IPPROTO_IPV6, kFlowLabelMgr, &req, sizeof req) != 0) {
    return FailErrno("setsockopt(IPV6_FLOWLABEL_MGR=" + std::to_string(label) + ")");
  }
  if (auto s = SetInt(fd, IPPROTO_IPV6, kFlowInfoSend, 1, "IPV6_FLOWINFO_SEND"); !s) {
    return tl::unexpected(s.error());
  }
  sin6.sin6_flowinfo = htonl(label & 0xFFFFF);
  return sin6;
}

}  // namespace

// Every option is tried even when an earlier one fails, so one refused setting (say an unknown
// congestion control) cannot leave the window, TOS or MSS at the kernel default; the error names
// each option that failed.
Status ApplySocketOptions(int fd, int family, int socket_type, const SocketOptions& o) {
  std::vector<Error> failed;
  auto keep = [&](Status s) {
    if (!s) failed.push_back(s.error());
  };
  if (o.reuse_addr) keep(SetInt(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR"));
  // IPV6_V6ONLY only before bind/connect: on an accepted or connected socket Linux answers
  // EINVAL (net/ipv6/ipv6_sockglue.c, do_ipv6_setsockopt), so it is set only when asked for.
  if (family == AF_INET6 && o.v6only.has_value()) {
    keep(SetInt(fd, IPPROTO_IPV6, IPV6_V6ONLY, *o.v6only ? 1 : 0, "IPV6_V6ONLY"));
  }
  if (o.window_bytes != 0) {
    const int w = static_cast<int>(o.window_bytes);
    keep(SetInt(fd, SOL_SOCKET, SO_SNDBUF, w, "SO_SNDBUF"));
    keep(SetInt(fd, SOL_SOCKET, SO_RCVBUF, w, "SO_RCVBUF"));
  } else if (o.receive_buffer_bytes != 0) {
    keep(SetInt(fd, SOL_SOCKET, SO_RCVBUF, static_cast<int>(o.receive_buffer_bytes), "SO_RCVBUF"));
  }
  if (o.tos != 0) {
    // An IPv6 socket may carry IPv4 traffic (a v4-mapped peer on a "::" listener); IPv4 packets
    // take their TOS from IP_TOS, IPv6 packets from IPV6_TCLASS, so such a socket gets both.
    if (family == AF_INET6) keep(SetInt(fd, IPPROTO_IPV6, IPV6_TCLASS, o.tos, "IPV6_TCLASS"));
    keep(SetInt(fd, IPPROTO_IP, IP_TOS, o.tos, "IP_TOS"));
  }
  if (o.dont_fragment) keep(SetDontFragment(fd, family));
  keep(ApplyDeviceAndTimeouts(fd, socket_type, o));
  if (socket_type == SOCK_STREAM) ApplyTcpOptions(fd, o, keep);
  if (failed.empty()) return Ok();
  std::string message = failed.front().ToString();
  for (size_t i = 1; i < failed.size(); ++i) message += "; " + failed[i].ToString();
  return Fail(message, failed.front().sys_errno);
}

Result<UniqueFd> Listen(const SocketAddress& addr, int backlog, const SocketOptions& options) {
  auto fd = NewSocket(addr.family(), SOCK_STREAM);
  if (!fd) return fd;
  if (auto s = ApplySocketOptions(fd->get(), addr.family(), SOCK_STREAM, options); !s) {
    return tl::unexpected(s.error());
  }
  if (::bind(fd->get(), addr.addr(), addr.length()) != 0)
    return FailErrno("bind " + addr.ToString());
  if (::listen(fd->get(), backlog) != 0) return FailErrno("listen " + addr.ToString());
  return fd;
}

Result<UniqueFd> Accept(int listen_fd, SocketAddress* peer) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  int fd;
  do {
    fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return FailErrno("accept");
  UniqueFd owned(fd);
  if (peer != nullptr && (ss.ss_family == AF_INET || ss.ss_family == AF_INET6)) {
    *peer = SocketAddress(reinterpret_cast<const sockaddr*>(&ss), len);
  }
  return owned;
}

Result<UniqueFd> Connect(const SocketAddress& addr, const std::string& bind_host,
                         uint16_t bind_port, const SocketOptions& options,
                         std::chrono::milliseconds timeout) {
  auto fd = NewSocket(addr.family(), SOCK_STREAM, options.mptcp);
  if (!fd) return fd;
  if (auto s = ApplySocketOptions(fd->get(), addr.family(), SOCK_STREAM, options); !s) {
    return tl::unexpected(s.error());
  }
  if (auto s = BindLocal(fd->get(), addr.family(), bind_host, bind_port, SOCK_STREAM); !s) {
    return tl::unexpected(s.error());
  }
  std::optional<sockaddr_in6> labelled;
  if (options.flowlabel != 0) {
    if (addr.family() != AF_INET6) return Fail("-L: a flow label needs an IPv6 connection");
    auto with = WithFlowLabel(fd->get(), addr, options.flowlabel);
    if (!with) return tl::unexpected(with.error());
    labelled = *with;
  }
  const sockaddr* target = labelled ? reinterpret_cast<const sockaddr*>(&*labelled) : addr.addr();
  if (auto s = SetNonBlocking(fd->get(), true); !s) return tl::unexpected(s.error());
  if (::connect(fd->get(), target, addr.length()) != 0) {
    if (errno != EINPROGRESS) return FailErrno("connect " + addr.ToString());
    if (auto s = WaitConnected(fd->get(), addr, timeout); !s) return tl::unexpected(s.error());
  }
  if (auto s = SetNonBlocking(fd->get(), false); !s) return tl::unexpected(s.error());
  return fd;
}

Result<UniqueFd> OpenTcp(int family, const SocketOptions& options, int flags) {
  auto fd = NewSocket(family, SOCK_STREAM | flags, options.mptcp);
  if (!fd) return fd;
  if (auto s = ApplySocketOptions(fd->get(), family, SOCK_STREAM, options); !s) {
    return tl::unexpected(s.error());
  }
  return fd;
}

Result<UniqueFd> OpenUdp(int family, const SocketOptions& options) {
  auto fd = NewSocket(family, SOCK_DGRAM);
  if (!fd) return fd;
  if (auto s = ApplySocketOptions(fd->get(), family, SOCK_DGRAM, options); !s) {
    return tl::unexpected(s.error());
  }
  return fd;
}

Result<UniqueFd> BindUdp(const SocketAddress& addr, const SocketOptions& options) {
  SocketOptions with_reuse = options;
  with_reuse.reuse_addr = true;
  // A "::" socket takes IPv4 peers too unless the caller asked otherwise.
  if (!with_reuse.v6only.has_value()) with_reuse.v6only = false;
  auto fd = OpenUdp(addr.family(), with_reuse);
  if (!fd) return fd;
  if (::bind(fd->get(), addr.addr(), addr.length()) != 0)
    return FailErrno("bind " + addr.ToString());
  return fd;
}

Status ConnectUdp(int fd, const SocketAddress& addr) {
  if (::connect(fd, addr.addr(), addr.length()) != 0)
    return FailErrno("connect(UDP) " + addr.ToString());
  return Ok();
}

Status SetNonBlocking(int fd, bool non_blocking) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return FailErrno("fcntl(F_GETFL)");
  const int wanted = non_blocking ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
  if (wanted != flags && fcntl(fd, F_SETFL, wanted) != 0)
    return FailErrno("fcntl(F_SETFL, O_NONBLOCK)");
  return Ok();
}

Status SetMaxPacingRate(int fd, uint64_t bytes_per_second) {
  // The option takes an unsigned long since kernel 4.13 (a u32 before); 64-bit lets rates over
  // 34 Gbit/s through.
  unsigned long rate = bytes_per_second;
  if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof(rate)) != 0) {
    return FailErrno("setsockopt(SO_MAX_PACING_RATE=" + std::to_string(bytes_per_second) + ")");
  }
  return Ok();
}

Result<std::string> CongestionName(int fd) {
  char name[64] = {};
  socklen_t len = sizeof(name) - 1;
  if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) != 0) {
    return FailErrno("getsockopt(TCP_CONGESTION)");
  }
  return std::string(name, strnlen(name, len));
}

Result<int> GetIntOption(int fd, int level, int name, const char* label) {
  int value = 0;
  socklen_t len = sizeof(value);
  if (getsockopt(fd, level, name, &value, &len) != 0)
    return FailErrno(std::string("getsockopt(") + label + ")");
  return value;
}

}  // namespace nicbench::net
