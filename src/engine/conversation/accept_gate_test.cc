#include "engine/conversation/accept_gate.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "engine/conversation/udp_hellos.h"
#include "net/socket.h"

namespace nicbench::engine {
namespace {

// EMFILE from accept: one waiting connection is accepted through the spare descriptor, told
// ACCESS_DENIED and closed, so the listener is no longer ready; accepting pauses.
TEST(AcceptGate, ExhaustedShedsOneConnectionAndPauses) {
  auto addr = net::SocketAddress::FromNumeric("127.0.0.1", 0);
  ASSERT_TRUE(addr);
  auto listener = net::Listen(*addr, 8, net::SocketOptions{});
  ASSERT_TRUE(listener);
  auto local = net::SocketAddress::Local(listener->get());
  ASSERT_TRUE(local);
  auto client = net::Connect(*local, "", 0, net::SocketOptions{}, std::chrono::seconds(5));
  ASSERT_TRUE(client);
  AcceptGate gate(OpenDescriptors());
  const auto now = AcceptGate::Clock::now();
  gate.OnExhausted(listener->get(), EMFILE, now);
  EXPECT_TRUE(gate.paused(now));
  EXPECT_FALSE(gate.paused(now + AcceptGate::kPause));
  pollfd p{client->get(), POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 5000), 1);
  unsigned char byte = 0;
  EXPECT_EQ(recv(client->get(), &byte, 1, 0), 1);
  EXPECT_EQ(byte, 0xFF);
  EXPECT_EQ(recv(client->get(), &byte, 1, 0), 0);  // closed
  pollfd l{listener->get(), POLLIN, 0};
  EXPECT_EQ(poll(&l, 1, 0), 0);  // nothing left ready: the loop cannot spin on it
}

TEST(UdpHellos, MappedIpv4ComparesAsIpv4) {
  auto mapped = net::SocketAddress::FromNumeric("::ffff:127.0.0.2", 9);
  auto v6 = net::SocketAddress::FromNumeric("::1", 9);
  ASSERT_TRUE(mapped && v6);
  EXPECT_EQ(UdpHellos::PlainHost(*mapped), "127.0.0.2");
  EXPECT_EQ(UdpHellos::PlainHost(*v6), "::1");
}

}  // namespace
}  // namespace nicbench::engine
