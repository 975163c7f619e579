#include "engine/conversation/udp_handshake.h"

#include <poll.h>
#include <sys/socket.h>

#include <cstring>

#include <fmt/format.h>

#include "engine/conversation/stream_plan.h"
#include "net/socket.h"
#include "protocol/wire.h"

namespace nicbench::engine {
namespace {

// Early data datagrams a reverse-mode client skips while waiting for the reply.
constexpr int kMaxEarlyDatagrams = 64;

// Waits for `fd` to become readable; false on timeout or when stop_fd fires first.
Result<bool> WaitReadable(int fd, std::chrono::milliseconds timeout, int stop_fd) {
  pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
  int n = poll(fds, stop_fd >= 0 ? 2 : 1, static_cast<int>(timeout.count()));
  if (n < 0) return FailErrno("poll");
  if (stop_fd >= 0 && (fds[1].revents & POLLIN)) return false;
  return n > 0 && (fds[0].revents & (POLLIN | POLLERR));
}

}  // namespace

Result<net::UniqueFd> UdpClientHandshake(const net::SocketAddress& server,
                                         const record::TestSpec& spec, uint16_t local_port,
                                         std::chrono::milliseconds timeout) {
  auto fd = net::OpenUdp(server.family(), DataSocketOptions(spec));
  if (!fd) return tl::unexpected(fd.error());
  if (!spec.bind_address.empty() || local_port != 0) {
    auto local = net::Resolve(spec.bind_address, local_port,
                              server.family() == AF_INET6 ? net::Family::kIpv6 : net::Family::kIpv4,
                              SOCK_DGRAM);
    if (!local) return tl::unexpected(local.error());
    if (bind(fd->get(), local->front().addr(), local->front().length()) != 0) {
      return FailErrno(fmt::format("bind UDP stream to {}", local->front().ToString()));
    }
  }
  if (auto s = net::ConnectUdp(fd->get(), server); !s) return tl::unexpected(s.error());
  if (send(fd->get(), protocol::kUdpHello, sizeof protocol::kUdpHello, MSG_NOSIGNAL) < 0) {
    return FailErrno("sending the UDP hello");
  }
  uint8_t buf[65536];
  for (int i = 0; i < kMaxEarlyDatagrams; ++i) {
    auto ready = WaitReadable(fd->get(), timeout, -1);
    if (!ready) return tl::unexpected(ready.error());
    if (!*ready) return Fail("timed out waiting for the server's UDP reply");
    ssize_t n = recv(fd->get(), buf, sizeof buf, 0);
    if (n < 0) return FailErrno("receiving the UDP reply");
    if (protocol::IsAcceptedUdpReply(buf, static_cast<size_t>(n))) return std::move(*fd);
    if (n <= static_cast<ssize_t>(protocol::kUdpHandshakeBytes)) {
      return Fail("the server's UDP reply was not one iperf3 sends");
    }
  }
  return Fail("no UDP reply among the first data datagrams");
}

}  // namespace nicbench::engine
