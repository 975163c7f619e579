// The test helper that tells whether the other end of a connection has read what was sent
// (testing::PeerUnreadBytes), on real loopback sockets: tests that must not race their peer
// wait on it, so it must count what waits unread, not only say 0.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "support/wait.h"

namespace nicbench::testing {
namespace {

TEST(PeerUnreadBytes, CountsWhatWaitsUnreadThenZeroOnceRead) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t len = sizeof address;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &len), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  const int client = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  // Not accepted yet: the peer's socket is there already, with nothing to read.
  EXPECT_EQ(PeerUnreadBytes(client), 0);
  const char bytes[100] = {};
  ASSERT_EQ(send(client, bytes, sizeof bytes, 0), 100);
  EXPECT_TRUE(WaitUntil([&] { return PeerUnreadBytes(client) == 100; })) << PeerUnreadBytes(client);
  const int server = accept(listener, nullptr, nullptr);
  ASSERT_GE(server, 0);
  char in[100];
  ASSERT_EQ(recv(server, in, sizeof in, MSG_WAITALL), 100);
  EXPECT_EQ(PeerUnreadBytes(client), 0);
  close(server);
  close(client);
  close(listener);
  // A closed socket has no peer to ask about.
  EXPECT_EQ(PeerUnreadBytes(client), -1);
}

}  // namespace
}  // namespace nicbench::testing
