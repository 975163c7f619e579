// Helpers for the engine's unit tests: connected loopback socket pairs and bounded waits.
// Waits are failure guards (a test that would hang fails instead), never timed assertions.
#pragma once

#include <poll.h>

#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/datapath/data_path.h"
#include "net/socket.h"
#include "net/socket_address.h"
#include "net/unique_fd.h"

namespace nicbench::engine::testing {

struct SocketPair {
  net::UniqueFd a, b;
};

// A TCP connection over 127.0.0.1 (port 0): a is the connecting end, b the accepted one.
inline SocketPair TcpPair(const net::SocketOptions& options = {}) {
  auto listener = net::Listen(*net::SocketAddress::FromNumeric("127.0.0.1", 0), 4, options);
  EXPECT_TRUE(listener) << listener.error().ToString();
  auto addr = net::SocketAddress::Local(listener->get());
  auto a = net::Connect(*addr, "", 0, options, std::chrono::milliseconds(5000));
  EXPECT_TRUE(a) << a.error().ToString();
  auto b = net::Accept(listener->get());
  EXPECT_TRUE(b) << b.error().ToString();
  return {std::move(*a), std::move(*b)};
}

// Two UDP sockets on 127.0.0.1 connected to each other.
inline SocketPair UdpPair() {
  auto loopback = *net::SocketAddress::FromNumeric("127.0.0.1", 0);
  auto a = net::BindUdp(loopback, {});
  auto b = net::BindUdp(loopback, {});
  EXPECT_TRUE(a && b);
  EXPECT_TRUE(net::ConnectUdp(a->get(), *net::SocketAddress::Local(b->get())));
  EXPECT_TRUE(net::ConnectUdp(b->get(), *net::SocketAddress::Local(a->get())));
  return {std::move(*a), std::move(*b)};
}

inline bool WaitReadable(int fd, std::chrono::milliseconds limit) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(limit.count())) == 1;
}

template <typename Pred>
bool WaitFor(Pred pred, std::chrono::seconds limit = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

inline FlowCounters Counters(const DataPath& dp, int id) {
  for (const FlowCounters& c : dp.Snapshot()) {
    if (c.id == id) return c;
  }
  ADD_FAILURE() << "no flow " << id;
  return {};
}

}  // namespace nicbench::engine::testing
