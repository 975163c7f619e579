// Test support: the accepting end of a fake peer that a test plays on a listening socket.
#pragma once

#include <poll.h>

#include <utility>

#include "net/socket.h"

namespace nicbench::testing {

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
