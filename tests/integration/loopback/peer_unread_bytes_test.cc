// The test helper that tells whether the other end of a connection has read what was sent
// (testing::PeerUnreadBytes), on real loopback sockets: tests that must not race their peer
// wait on it, so it must count what waits unread, not only say 0.
#include <sys/socket.h>

#include <chrono>

#include <gtest/gtest.h>

#include "net/socket.h"
#include "support/accept.h"
#include "support/wait.h"

namespace nicbench::testing {
namespace {

TEST(PeerUnreadBytes, CountsWhatWaitsUnreadThenZeroOnceRead) {
  auto listener = testing::ListenOnLoopback(1);
  ASSERT_TRUE(listener) << listener.error().message;
  auto client = net::Connect(listener->address, "", 0, {}, std::chrono::seconds(10));
  ASSERT_TRUE(client) << client.error().message;
  const int fd = client->get();
  // Not accepted yet: the peer's socket is there already, with nothing to read.
  EXPECT_EQ(PeerUnreadBytes(fd), 0);
  const char bytes[100] = {};
  ASSERT_EQ(send(fd, bytes, sizeof bytes, 0), 100);
  EXPECT_TRUE(WaitUntil([&] { return PeerUnreadBytes(fd) == 100; })) << PeerUnreadBytes(fd);
  auto server = net::Accept(listener->fd.get());
  ASSERT_TRUE(server) << server.error().message;
  char in[100];
  ASSERT_EQ(recv(server->get(), in, sizeof in, MSG_WAITALL), 100);
  EXPECT_EQ(PeerUnreadBytes(fd), 0);
  server->Reset();
  client->Reset();
  // A closed socket has no peer to ask about.
  EXPECT_EQ(PeerUnreadBytes(fd), -1);
}

}  // namespace
}  // namespace nicbench::testing
