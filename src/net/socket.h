// Socket creation for the data and control connections: TCP listen/connect (non-blocking
// connect with a timeout), UDP open/bind/connect, and the per-socket options a test asks for.
// Every failure is a value whose message names the call and option ("setsockopt(TCP_MAXSEG=
// 1200): Invalid argument"). Free functions; thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "net/socket_address.h"
#include "net/unique_fd.h"

namespace nicbench::net {

// What a test may set on a socket. Zero / empty means "leave the kernel default".
struct SocketOptions {
  uint32_t window_bytes = 0;  // SO_SNDBUF and SO_RCVBUF (the kernel doubles it, socket(7))
  // SO_RCVBUF alone, when window_bytes is 0 (capped by net.core.rmem_max, then doubled).
  uint32_t receive_buffer_bytes = 0;
  uint32_t mss = 0;         // TCP_MAXSEG, set before connect so the SYN carries it
  bool no_delay = false;    // TCP_NODELAY
  std::string congestion;   // TCP_CONGESTION ("cubic", "bbr", ...)
  int tos = 0;              // IP_TOS, or IPV6_TCLASS on IPv6 sockets
  bool reuse_addr = false;  // SO_REUSEADDR before bind
  // IPV6_V6ONLY on IPv6 sockets, before bind only (false: a "::" listener takes v4 too); unset =
  // leave it alone, as an accepted or connected socket must (Linux answers EINVAL there).
  std::optional<bool> v6only;
  std::string bind_device;       // SO_BINDTODEVICE (needs CAP_NET_RAW), empty = any interface
  bool dont_fragment = false;    // UDP: IP(V6)_MTU_DISCOVER = PMTUDISC_DO (the DF bit on IPv4)
  uint32_t user_timeout_ms = 0;  // TCP_USER_TIMEOUT: unacknowledged data this long ends it
  // SO_KEEPALIVE with TCP_KEEPIDLE / TCP_KEEPINTVL / TCP_KEEPCNT (0 = the kernel's default).
  bool keepalive = false;
  int keepalive_idle_s = 0, keepalive_interval_s = 0, keepalive_count = 0;
  bool mptcp = false;      // TCP sockets are created as IPPROTO_MPTCP (Linux >= 5.6)
  uint32_t flowlabel = 0;  // IPv6 TCP connect: this flow label (IPV6_FLOWLABEL_MGR), 0 = none
};

// Applies `options` to a socket of `family` (AF_INET/AF_INET6) and `socket_type`
// (SOCK_STREAM/SOCK_DGRAM); TCP-only options are skipped on UDP sockets. Every option is tried;
// the error, if any, names each one that failed.
Status ApplySocketOptions(int fd, int family, int socket_type, const SocketOptions& options);

// A listening TCP socket bound to `addr` (port 0 = ephemeral; read it with
// SocketAddress::Local). Blocking, close-on-exec.
Result<UniqueFd> Listen(const SocketAddress& addr, int backlog, const SocketOptions& options);

// accept4 with close-on-exec; the accepted socket is blocking. `peer` may be null.
Result<UniqueFd> Accept(int listen_fd, SocketAddress* peer = nullptr);

// Connects a TCP socket to `addr`, optionally bound first to `bind_host` (numeric or name,
// empty = any) and `bind_port` (0 = ephemeral). The connect is non-blocking and waits at most
// `timeout`; the returned socket is back in blocking mode.
Result<UniqueFd> Connect(const SocketAddress& addr, const std::string& bind_host,
                         uint16_t bind_port, const SocketOptions& options,
                         std::chrono::milliseconds timeout);

// An unbound TCP socket of `family` (MPTCP with options.mptcp) with `options` applied;
// `flags` may add SOCK_NONBLOCK.
Result<UniqueFd> OpenTcp(int family, const SocketOptions& options, int flags = 0);
// An unbound UDP socket of `family` with `options` applied.
Result<UniqueFd> OpenUdp(int family, const SocketOptions& options);
// A UDP socket bound to `addr` (SO_REUSEADDR is always set, as iperf3's server does so that
// several stream sockets can share the test port).
Result<UniqueFd> BindUdp(const SocketAddress& addr, const SocketOptions& options);
// connect(2) on a UDP socket: fixes its peer so send/recv need no address.
Status ConnectUdp(int fd, const SocketAddress& addr);

Status SetNonBlocking(int fd, bool non_blocking = true);

// SO_MAX_PACING_RATE (kernel >= 3.13) in bytes per second; enforced by the fq qdisc or, since
// 4.13, by TCP's internal pacing.
Status SetMaxPacingRate(int fd, uint64_t bytes_per_second);

// The congestion control algorithm in use on a TCP socket (TCP_CONGESTION).
Result<std::string> CongestionName(int fd);

// getsockopt of an int option; `label` names it in the error.
Result<int> GetIntOption(int fd, int level, int name, const char* label);

}  // namespace nicbench::net
