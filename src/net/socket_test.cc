#include "net/socket.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <vector>

#include <gtest/gtest.h>

#include "net/socket_address.h"
#include "net/unique_fd.h"

namespace nicbench::net {
namespace {

using std::chrono::milliseconds;

SocketAddress Loopback4(uint16_t port = 0) {
  return *SocketAddress::FromNumeric("127.0.0.1", port);
}

TEST(UniqueFdTest, ClosesOnceAndMoves) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    UniqueFd a(fds[0]);
    UniqueFd b(std::move(a));
    EXPECT_FALSE(a.valid());
    EXPECT_EQ(b.get(), fds[0]);
  }
  EXPECT_EQ(fcntl(fds[0], F_GETFD), -1);  // closed by b
  UniqueFd w(fds[1]);
  int raw = w.Release();
  EXPECT_FALSE(w.valid());
  EXPECT_EQ(close(raw), 0);  // still open until now: Release did not close it
}

TEST(SocketAddressTest, ResolvesNumericAndNames) {
  auto v4 = Resolve("127.0.0.1", 5201);
  ASSERT_TRUE(v4) << v4.error().ToString();
  ASSERT_EQ(v4->size(), 1u);
  EXPECT_EQ((*v4)[0].ToString(), "127.0.0.1:5201");
  EXPECT_EQ((*v4)[0].port(), 5201);
  EXPECT_EQ((*v4)[0].family(), AF_INET);

  auto v6 = Resolve("::1", 80, Family::kIpv6);
  ASSERT_TRUE(v6) << v6.error().ToString();
  EXPECT_EQ((*v6)[0].ToString(), "[::1]:80");

  auto name = Resolve("localhost", 7, Family::kIpv4);
  ASSERT_TRUE(name) << name.error().ToString();
  EXPECT_EQ((*name)[0].HostString(), "127.0.0.1");

  auto wildcard = Resolve("", 0, Family::kIpv6);
  ASSERT_TRUE(wildcard);
  EXPECT_EQ((*wildcard)[0].HostString(), "::");
}

TEST(SocketAddressTest, RefusesWrongFamilyAndJunk) {
  EXPECT_FALSE(Resolve("127.0.0.1", 1, Family::kIpv6));
  EXPECT_FALSE(Resolve("no such host.invalid", 1));
  EXPECT_FALSE(SocketAddress::FromNumeric("localhost", 1));
  auto a = SocketAddress::FromNumeric("::1", 9);
  ASSERT_TRUE(a);
  a->set_port(10);
  EXPECT_EQ(a->ToString(), "[::1]:10");
}

TEST(SocketTest, ListenConnectAcceptOnLoopback) {
  auto listener = Listen(Loopback4(), 8, SocketOptions{});
  ASSERT_TRUE(listener) << listener.error().ToString();
  auto local = SocketAddress::Local(listener->get());
  ASSERT_TRUE(local);
  ASSERT_NE(local->port(), 0);

  SocketOptions options;
  options.no_delay = true;
  options.window_bytes = 256 * 1024;
  options.mss = 1000;
  auto client = Connect(*local, "127.0.0.1", 0, options, milliseconds(2000));
  ASSERT_TRUE(client) << client.error().ToString();
  SocketAddress peer;
  auto server = Accept(listener->get(), &peer);
  ASSERT_TRUE(server) << server.error().ToString();
  EXPECT_EQ(peer.HostString(), "127.0.0.1");

  EXPECT_EQ(*GetIntOption(client->get(), IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY"), 1);
  // The kernel doubles the requested size for its bookkeeping (socket(7)).
  EXPECT_GE(*GetIntOption(client->get(), SOL_SOCKET, SO_SNDBUF, "SO_SNDBUF"), 256 * 1024);
  EXPECT_LE(*GetIntOption(client->get(), IPPROTO_TCP, TCP_MAXSEG, "TCP_MAXSEG"), 1000);
  // Back in blocking mode after the non-blocking connect.
  EXPECT_EQ(fcntl(client->get(), F_GETFL) & O_NONBLOCK, 0);

  const char msg[] = "hello";
  ASSERT_EQ(send(client->get(), msg, sizeof(msg), 0), static_cast<ssize_t>(sizeof(msg)));
  char got[sizeof(msg)] = {};
  ASSERT_EQ(recv(server->get(), got, sizeof(got), MSG_WAITALL), static_cast<ssize_t>(sizeof(msg)));
  EXPECT_STREQ(got, "hello");
}

// SO_RCVBUF alone: the kernel caps the request at net.core.rmem_max and doubles it.
TEST(SocketTest, ReceiveBufferAloneRaisesOnlyTheReceiveBuffer) {
  auto plain = OpenUdp(AF_INET, SocketOptions{});
  ASSERT_TRUE(plain) << plain.error().ToString();
  const int default_snd = *GetIntOption(plain->get(), SOL_SOCKET, SO_SNDBUF, "SO_SNDBUF");
  const int default_rcv = *GetIntOption(plain->get(), SOL_SOCKET, SO_RCVBUF, "SO_RCVBUF");
  SocketOptions options;
  options.receive_buffer_bytes = 4u << 20;
  auto fd = OpenUdp(AF_INET, options);
  ASSERT_TRUE(fd) << fd.error().ToString();
  const int rcv = *GetIntOption(fd->get(), SOL_SOCKET, SO_RCVBUF, "SO_RCVBUF");
  std::ifstream max_file("/proc/sys/net/core/rmem_max");
  long rmem_max = 0;
  if (max_file >> rmem_max) {
    EXPECT_GE(rcv, std::min<long>(4l << 20, rmem_max)) << "rmem_max " << rmem_max;
  }
  EXPECT_GT(rcv, default_rcv);
  EXPECT_EQ(*GetIntOption(fd->get(), SOL_SOCKET, SO_SNDBUF, "SO_SNDBUF"), default_snd);
}

TEST(SocketTest, DualStackListenerOnIpv6Loopback) {
  auto any6 = Resolve("::1", 0, Family::kIpv6);
  ASSERT_TRUE(any6);
  auto listener = Listen((*any6)[0], 4, SocketOptions{});
  ASSERT_TRUE(listener) << listener.error().ToString();
  auto local = SocketAddress::Local(listener->get());
  auto client = Connect(*local, "", 0, SocketOptions{}, milliseconds(2000));
  ASSERT_TRUE(client) << client.error().ToString();
  EXPECT_EQ(SocketAddress::Peer(client->get())->ToString(), local->ToString());
}

TEST(SocketTest, ConnectBindsTheRequestedPort) {
  auto listener = Listen(Loopback4(), 4, SocketOptions{});
  ASSERT_TRUE(listener);
  // Find a free port by binding to 0, then reuse it for the client's source port.
  auto probe = Listen(Loopback4(), 1, SocketOptions{});
  const uint16_t free_port = SocketAddress::Local(probe->get())->port();
  probe->Reset();
  SocketOptions options;
  options.reuse_addr = true;
  auto client = Connect(*SocketAddress::Local(listener->get()), "127.0.0.1", free_port, options,
                        milliseconds(2000));
  ASSERT_TRUE(client) << client.error().ToString();
  EXPECT_EQ(SocketAddress::Local(client->get())->port(), free_port);
}

TEST(SocketTest, ConnectRefusedIsAnErrorWithErrno) {
  auto probe = Listen(Loopback4(), 1, SocketOptions{});
  const SocketAddress closed = *SocketAddress::Local(probe->get());
  probe->Reset();
  auto client = Connect(closed, "", 0, SocketOptions{}, milliseconds(2000));
  ASSERT_FALSE(client);
  EXPECT_EQ(client.error().sys_errno, ECONNREFUSED);
  EXPECT_NE(client.error().message.find(closed.ToString()), std::string::npos);
}

TEST(SocketTest, ConnectTimesOutWhenTheAcceptQueueIsFull) {
  // Linux drops SYNs to a listener whose accept queue is full (tcp_conn_request in
  // net/ipv4/tcp_input.c), so a connect to it hangs until our timeout.
  auto listener = Listen(Loopback4(), 0, SocketOptions{});
  ASSERT_TRUE(listener);
  const SocketAddress addr = *SocketAddress::Local(listener->get());
  std::vector<UniqueFd> held;
  Result<UniqueFd> last = Fail("not tried");
  for (int i = 0; i < 8; ++i) {
    last = Connect(addr, "", 0, SocketOptions{}, milliseconds(300));
    if (!last) break;
    held.push_back(std::move(*last));
  }
  ASSERT_FALSE(last) << "the accept queue never filled";
  EXPECT_EQ(last.error().sys_errno, ETIMEDOUT);
  EXPECT_NE(last.error().message.find("timed out"), std::string::npos);
}

TEST(SocketTest, FailingOptionNamesItself) {
  SocketOptions options;
  options.congestion = "no-such-algorithm";
  auto client = Connect(Loopback4(9), "", 0, options, milliseconds(100));
  ASSERT_FALSE(client);
  EXPECT_NE(client.error().message.find("TCP_CONGESTION=no-such-algorithm"), std::string::npos)
      << client.error().message;

  SocketOptions bad_mss;
  bad_mss.mss = 1;  // below TCP_MIN_MSS
  auto listener = Listen(Loopback4(), 1, bad_mss);
  ASSERT_FALSE(listener);
  EXPECT_NE(listener.error().message.find("TCP_MAXSEG=1"), std::string::npos)
      << listener.error().message;
}

TEST(SocketTest, CongestionNameReadsBack) {
  auto listener = Listen(Loopback4(), 1, SocketOptions{});
  auto client =
      Connect(*SocketAddress::Local(listener->get()), "", 0, SocketOptions{}, milliseconds(2000));
  ASSERT_TRUE(client);
  auto name = CongestionName(client->get());
  ASSERT_TRUE(name) << name.error().ToString();
  EXPECT_FALSE(name->empty());

  SocketOptions reno;
  reno.congestion = "reno";  // always built in (net/ipv4/tcp_cong.c)
  auto client2 = Connect(*SocketAddress::Local(listener->get()), "", 0, reno, milliseconds(2000));
  ASSERT_TRUE(client2) << client2.error().ToString();
  EXPECT_EQ(*CongestionName(client2->get()), "reno");
}

TEST(SocketTest, UdpBindConnectRoundTrip) {
  auto server = BindUdp(Loopback4(), SocketOptions{});
  ASSERT_TRUE(server) << server.error().ToString();
  const SocketAddress server_addr = *SocketAddress::Local(server->get());
  SocketOptions options;
  options.tos = 0x10;
  auto client = OpenUdp(AF_INET, options);
  ASSERT_TRUE(client);
  ASSERT_TRUE(ConnectUdp(client->get(), server_addr));
  EXPECT_EQ(*GetIntOption(client->get(), IPPROTO_IP, IP_TOS, "IP_TOS"), 0x10);
  ASSERT_EQ(send(client->get(), "abcd", 4, 0), 4);
  char buf[8];
  sockaddr_storage from{};
  socklen_t len = sizeof(from);
  ASSERT_EQ(recvfrom(server->get(), buf, sizeof(buf), 0, reinterpret_cast<sockaddr*>(&from), &len),
            4);
  SocketAddress from_addr(reinterpret_cast<sockaddr*>(&from), len);
  EXPECT_EQ(from_addr.ToString(), SocketAddress::Local(client->get())->ToString());
  // A second socket may bind the same port: BindUdp sets SO_REUSEADDR as iperf3's server needs.
  auto second = BindUdp(server_addr, SocketOptions{});
  EXPECT_TRUE(second) << second.error().ToString();
}

TEST(SocketTest, SetNonBlockingTogglesTheFlag) {
  auto fd = OpenUdp(AF_INET, SocketOptions{});
  ASSERT_TRUE(fd);
  ASSERT_TRUE(SetNonBlocking(fd->get(), true));
  EXPECT_NE(fcntl(fd->get(), F_GETFL) & O_NONBLOCK, 0);
  ASSERT_TRUE(SetNonBlocking(fd->get(), false));
  EXPECT_EQ(fcntl(fd->get(), F_GETFL) & O_NONBLOCK, 0);
  EXPECT_FALSE(SetNonBlocking(-1));
}

}  // namespace
}  // namespace nicbench::net

namespace nicbench::net {
namespace {

int IntOption(int fd, int level, int name) {
  auto v = GetIntOption(fd, level, name, "test");
  return v ? *v : -1;
}

// The drop-in options (--snd-timeout, --cntl-ka, --dont-fragment, --bind-dev) reach the kernel.
TEST(SocketOptionsTest, TimeoutsKeepaliveDontFragmentAndDevice) {
  UniqueFd tcp(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  SocketOptions o;
  o.user_timeout_ms = 4000;
  o.keepalive = true;
  o.keepalive_idle_s = 30;
  o.keepalive_count = 3;
  ASSERT_TRUE(ApplySocketOptions(tcp.get(), AF_INET, SOCK_STREAM, o));
  EXPECT_EQ(IntOption(tcp.get(), IPPROTO_TCP, TCP_USER_TIMEOUT), 4000);
  EXPECT_EQ(IntOption(tcp.get(), SOL_SOCKET, SO_KEEPALIVE), 1);
  EXPECT_EQ(IntOption(tcp.get(), IPPROTO_TCP, TCP_KEEPIDLE), 30);
  EXPECT_EQ(IntOption(tcp.get(), IPPROTO_TCP, TCP_KEEPCNT), 3);

  UniqueFd udp(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  SocketOptions df;
  df.dont_fragment = true;
  ASSERT_TRUE(ApplySocketOptions(udp.get(), AF_INET, SOCK_DGRAM, df));
  EXPECT_EQ(IntOption(udp.get(), IPPROTO_IP, IP_MTU_DISCOVER), IP_PMTUDISC_DO);

  SocketOptions dev;
  dev.bind_device = "nicbench-no-such-if";
  UniqueFd other(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  auto refused = ApplySocketOptions(other.get(), AF_INET, SOCK_DGRAM, dev);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().ToString().find("SO_BINDTODEVICE=nicbench-no-such-if"),
            std::string::npos);
}

TEST(SocketOptionsTest, FlowLabelNeedsIpv6) {
  auto listener = Listen(Loopback4(), 4, {});
  ASSERT_TRUE(listener);
  auto local = SocketAddress::Local(listener->get());
  SocketOptions o;
  o.flowlabel = 5;
  auto fd = Connect(*local, "", 0, o, milliseconds(1000));
  ASSERT_FALSE(fd);
  EXPECT_NE(fd.error().ToString().find("needs an IPv6 connection"), std::string::npos);
}

}  // namespace
}  // namespace nicbench::net
