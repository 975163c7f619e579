// Test support: a fake peer's listening socket on loopback and its accepting end.
#pragma once

#include <poll.h>

#include <string>
#include <utility>

#include "net/socket.h"

namespace nicbench::testing {

// A listening socket on 127.0.0.1 at a port the kernel picks, and the address it got.
struct LoopbackListener {
  net::UniqueFd fd;
  net::SocketAddress address;
};
inline Result<LoopbackListener> ListenOnLoopback(int backlog) {
  auto loopback = net::SocketAddress::FromNumeric("127.0.0.1", 0);
  if (!loopback) return tl::unexpected(loopback.error());
  auto listener = net::Listen(*loopback, backlog, {});
  if (!listener) return tl::unexpected(listener.error());
  auto where = net::SocketAddress::Local(listener->get());
  if (!where) return tl::unexpected(where.error());
  return LoopbackListener{std::move(*listener), *where};
}

// The next connection on `listen_fd`, blocking, or an empty fd when none came within 10 s (a
// safety net, not a timing assertion: the test then fails on the empty fd).
inline net::UniqueFd AcceptBlocking(int listen_fd) {
  pollfd p{listen_fd, POLLIN, 0};
  if (poll(&p, 1, 10000) != 1) return {};
  auto fd = net::Accept(listen_fd);
  if (!fd) return {};
  (void)net::SetNonBlocking(fd->get(), false);
  return std::move(*fd);
}

}  // namespace nicbench::testing
