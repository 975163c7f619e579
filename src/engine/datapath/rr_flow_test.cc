// The RR flows in a real DataPath over real loopback sockets: each completed transaction is
// timed once, both ends count the same, the UDP timeout counts a request nobody answers.
#include "engine/datapath/rr_flow.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "engine/datapath/data_path_test_util.h"
#include "net/fake_sys_calls.h"
#include "support/wait.h"

namespace nicbench::engine {
namespace {

FlowConfig RrConfig(int fd, bool client, record::Transport transport, record::RrMode mode) {
  FlowConfig c;
  c.fd = fd;
  c.id = 1;
  c.sender = client;
  c.transport = transport;
  c.block_bytes = 1;
  c.rr.mode = mode;
  return c;
}

// Runs `transactions` between a client DataPath and a server DataPath; returns both counters.
std::pair<FlowCounters, FlowCounters> Exchange(testing::SocketPair pair, record::Transport t,
                                               record::RrMode mode, uint64_t transactions,
                                               uint32_t burst, bool alone = false,
                                               uint32_t spin_us = 0,
                                               const std::string& crr_token = {}) {
  auto client = DataPath::Create(1);
  auto server = DataPath::Create(1);
  FlowConfig c = RrConfig(pair.a.Release(), true, t, mode);
  FlowConfig s = RrConfig(pair.b.Release(), false, t, mode);
  c.rr.burst = s.rr.burst = burst;
  c.rr_alone = s.rr_alone = alone;
  c.rr.spin_us = s.rr.spin_us = spin_us;
  c.rr.request_bytes = s.rr.request_bytes = 3;
  c.rr.response_bytes = s.rr.response_bytes = 700;
  c.crr_token = s.crr_token = crr_token;
  EXPECT_TRUE(server->AddFlow(s));
  EXPECT_TRUE(client->AddFlow(c));
  client->SetBudget(SendBudget{0, transactions});
  EXPECT_TRUE(server->Start());
  EXPECT_TRUE(client->Start());
  EXPECT_TRUE(testing::WaitReadable(client->DoneFd(), std::chrono::milliseconds(30000)));
  EXPECT_TRUE(testing::WaitFor([&] { return server->Snapshot()[0].transactions >= transactions; }));
  client->Stop();
  server->Stop();
  EXPECT_TRUE(client->Join());
  (void)server->Join();
  // Counted once both paths are joined: a running server publishes a transaction as it answers
  // and its bytes at the end of the same turn, so a snapshot between the two lags by a request.
  return std::make_pair(client->Snapshot()[0], server->Snapshot()[0]);
}

void ExpectExact(const std::pair<FlowCounters, FlowCounters>& both, uint64_t n) {
  const auto& [c, s] = both;
  EXPECT_TRUE(c.rr);
  EXPECT_EQ(c.transactions, n);
  EXPECT_EQ(s.transactions, n);
  ASSERT_TRUE(c.latency);
  EXPECT_EQ(c.latency->count(), n);
  EXPECT_GT(c.latency->ValueAtQuantile(0.5), 0.0);
  EXPECT_FALSE(s.latency) << "the server does not time";
  EXPECT_EQ(c.bytes, 3 * n);
  EXPECT_EQ(s.bytes, 3 * n);
}

TEST(RrFlow, TcpBudgetOfTransactionsIsExact) {
  ExpectExact(Exchange(testing::TcpPair(), record::Transport::kTcp, record::RrMode::kRr, 500, 1),
              500);
}

TEST(RrFlow, LoneFlowsRunInBlockingCalls) {
  ExpectExact(Exchange(testing::TcpPair(), record::Transport::kTcp, record::RrMode::kRr, 500, 1,
                       /*alone=*/true),
              500);
  ExpectExact(Exchange(testing::UdpPair(), record::Transport::kUdp, record::RrMode::kRr, 300, 1,
                       /*alone=*/true),
              300);
}

// --rr-spin on every path: the lone blocking loops (TCP, UDP, CRR) and the epoll loop.
TEST(RrFlow, SpinningFlowsCountExactly) {
  constexpr uint32_t kSpinUs = 200;
  ExpectExact(Exchange(testing::TcpPair(), record::Transport::kTcp, record::RrMode::kRr, 500, 1,
                       /*alone=*/true, kSpinUs),
              500);
  ExpectExact(Exchange(testing::UdpPair(), record::Transport::kUdp, record::RrMode::kRr, 300, 1,
                       /*alone=*/true, kSpinUs),
              300);
  ExpectExact(Exchange(testing::TcpPair(), record::Transport::kTcp, record::RrMode::kRr, 400, 3,
                       /*alone=*/false, kSpinUs),
              400);
  auto crr = Exchange(testing::TcpPair(), record::Transport::kTcp, record::RrMode::kCrr, 30, 1,
                      /*alone=*/true, kSpinUs);
  EXPECT_EQ(crr.first.transactions, 30u);
  EXPECT_EQ(crr.second.transactions, 30u);
}

// A wait under --rr-spin polls (MSG_DONTWAIT) until the spin runs out and then blocks; a
// message already there is taken by the first poll; without the spin the first receive blocks.
TEST(RrFlow, SpinPollsBeforeTheWaitBlocks) {
  using Kind = net::FakeSysCalls::Kind;
  testing::SocketPair pair = testing::TcpPair();
  ASSERT_TRUE(BlockWithTimeout(pair.b.get(), 20));
  std::vector<uint8_t> buf(16);
  const std::atomic<bool> stopping{true};  // a receive that times out ends the wait

  net::FakeSysCalls idle;
  auto got = RecvAll(&idle, pair.b.get(), buf, 1, stopping, /*spin_ns=*/2'000'000);
  ASSERT_TRUE(got) << got.error().ToString();
  EXPECT_EQ(*got, Step::kStopped);
  EXPECT_GE(idle.polling_recvs(), 1u);
  EXPECT_EQ(idle.calls(Kind::kRecv) - idle.polling_recvs(), 1u) << "one blocking receive";

  net::FakeSysCalls plain;
  got = RecvAll(&plain, pair.b.get(), buf, 1, stopping, 0);
  ASSERT_TRUE(got);
  EXPECT_EQ(plain.polling_recvs(), 0u);
  EXPECT_EQ(plain.calls(Kind::kRecv), 1u);

  ASSERT_EQ(::send(pair.a.get(), "x", 1, 0), 1);
  ASSERT_TRUE(testing::WaitReadable(pair.b.get(), std::chrono::milliseconds(5000)));
  net::FakeSysCalls ready;
  got = RecvAll(&ready, pair.b.get(), buf, 1, stopping, /*spin_ns=*/2'000'000);
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, Step::kDone);
  EXPECT_EQ(ready.calls(Kind::kRecv), 1u);
  EXPECT_EQ(ready.polling_recvs(), 1u);
}

// Stamped TCP RR flows (FlowConfig::rr_stamps, the kept probe of run --under-load): `burst`
// in flight, 700-byte responses so a response's 16-byte head may come split over reads, the
// client correcting by `offset_ns` as though the server's clock ran that far ahead.
std::pair<FlowCounters, FlowCounters> StampedExchange(uint64_t transactions, uint32_t burst,
                                                      int64_t offset_ns) {
  testing::SocketPair pair = testing::TcpPair();
  auto client = DataPath::Create(1);
  auto server = DataPath::Create(1);
  FlowConfig c = RrConfig(pair.a.Release(), true, record::Transport::kTcp, record::RrMode::kRr);
  FlowConfig s = RrConfig(pair.b.Release(), false, record::Transport::kTcp, record::RrMode::kRr);
  c.rr.burst = s.rr.burst = burst;
  c.rr.request_bytes = s.rr.request_bytes = 1;
  c.rr.response_bytes = s.rr.response_bytes = 700;
  c.rr_stamps = s.rr_stamps = true;
  c.clock_offset_ns = offset_ns;
  EXPECT_TRUE(server->AddFlow(s));
  EXPECT_TRUE(client->AddFlow(c));
  client->SetBudget(SendBudget{0, transactions});
  EXPECT_TRUE(server->Start());
  EXPECT_TRUE(client->Start());
  EXPECT_TRUE(testing::WaitReadable(client->DoneFd(), std::chrono::milliseconds(30000)));
  EXPECT_TRUE(testing::WaitFor([&] { return server->Snapshot()[0].transactions >= transactions; }));
  client->Stop();
  server->Stop();
  EXPECT_TRUE(client->Join());
  (void)server->Join();
  return std::make_pair(client->Snapshot()[0], server->Snapshot()[0]);
}

TEST(RrFlow, StampedResponsesGiveEachTransactionsOneWayDelays) {
  const auto [c, s] = StampedExchange(300, 4, 0);
  EXPECT_EQ(c.transactions, 300u);
  EXPECT_EQ(s.transactions, 300u);
  ASSERT_TRUE(c.up_latency && c.down_latency && c.latency);
  EXPECT_EQ(c.up_latency->count(), 300u);
  EXPECT_EQ(c.down_latency->count(), 300u);
  EXPECT_FALSE(s.up_latency) << "the server does not time";
  // One clock at both ends: each way is part of its round trip (CLOCK_REALTIME and
  // CLOCK_MONOTONIC read a few ns apart, hence the microsecond of slack).
  EXPECT_LE(c.up_latency->ValueAtQuantile(0.5), c.latency->max_ns() + 1000.0);
  EXPECT_LE(c.down_latency->ValueAtQuantile(0.5), c.latency->max_ns() + 1000.0);
  EXPECT_EQ(c.bytes, 300u);
}

TEST(RrFlow, StampedClientCorrectsByTheClocksOffset) {
  // The server's clock said to run 1 s ahead while it runs with ours: every request seems to
  // arrive a second early (below 0: counted as 0) and every response to take a second longer.
  constexpr int64_t kSecond = 1000000000;
  const auto [c, s] = StampedExchange(50, 1, kSecond);
  ASSERT_TRUE(c.up_latency && c.down_latency);
  EXPECT_EQ(c.up_latency->max_ns(), 0u);
  EXPECT_GE(c.down_latency->min_ns(), static_cast<uint64_t>(kSecond));
  EXPECT_LT(c.down_latency->ValueAtQuantile(0.5), kSecond * 1.02);
}

TEST(RrFlow, StampsNeedRoomInTheResponseAndTheEpollPath) {
  testing::SocketPair pair = testing::TcpPair();
  auto path = DataPath::Create(1);
  FlowConfig c = RrConfig(pair.a.Release(), true, record::Transport::kTcp, record::RrMode::kRr);
  c.rr_stamps = true;  // 1-byte responses: no room for two timestamps
  auto added = path->AddFlow(c);
  ASSERT_FALSE(added);
  EXPECT_NE(added.error().message.find("at least 16 bytes"), std::string::npos)
      << added.error().message;
}

TEST(RrFlow, TcpBurstKeepsSeveralInFlight) {
  ExpectExact(Exchange(testing::TcpPair(), record::Transport::kTcp, record::RrMode::kRr, 999, 7),
              999);
}

TEST(RrFlow, UdpMatchesResponsesToRequests) {
  ExpectExact(Exchange(testing::UdpPair(), record::Transport::kUdp, record::RrMode::kRr, 400, 4),
              400);
}

TEST(RrFlow, CrrConnectsForEveryTransaction) {
  auto both = Exchange(testing::TcpPair(), record::Transport::kTcp, record::RrMode::kCrr, 50, 2);
  ExpectExact(both, 50);
  ASSERT_TRUE(both.first.connect_latency);
  EXPECT_EQ(both.first.connect_latency->count(), 50u);
}

TEST(RrFlow, LoneCrrFlowsRunInBlockingCallsAndMeetTheBudget) {
  auto both = Exchange(testing::TcpPair(), record::Transport::kTcp, record::RrMode::kCrr, 300, 1,
                       /*alone=*/true);
  ExpectExact(both, 300);
  ASSERT_TRUE(both.first.connect_latency);
  EXPECT_EQ(both.first.connect_latency->count(), 300u);
}

// Reads the listener port a CRR server end wrote on its data connection.
uint16_t CrrPort(int data_fd) {
  uint8_t wire[2] = {0, 0};
  EXPECT_EQ(recv(data_fd, wire, 2, MSG_WAITALL), 2);
  return static_cast<uint16_t>(wire[0] << 8 | wire[1]);
}

net::UniqueFd ConnectTo(uint16_t port) {
  auto addr = net::SocketAddress::FromNumeric("127.0.0.1", port);
  auto fd = net::Connect(*addr, "", 0, {}, std::chrono::milliseconds(5000));
  EXPECT_TRUE(fd) << fd.error().ToString();
  return fd ? std::move(*fd) : net::UniqueFd();
}

// One lone CRR end on a DataPath of its own, started (the flow takes `fd`, its data connection).
std::unique_ptr<DataPath> StartLoneCrr(int fd, bool client, uint32_t request, uint32_t response,
                                       const std::string& token = {}, bool alone = true) {
  auto path = DataPath::Create(1);
  FlowConfig c = RrConfig(fd, client, record::Transport::kTcp, record::RrMode::kCrr);
  c.rr_alone = alone;
  c.crr_token = token;
  c.rr.request_bytes = request;
  c.rr.response_bytes = response;
  EXPECT_TRUE(path->AddFlow(c));
  EXPECT_TRUE(path->Start());
  return path;
}

TEST(RrFlow, LoneCrrServerAnswersAndStopsWhileBlocked) {
  testing::SocketPair pair = testing::TcpPair();
  auto server = StartLoneCrr(pair.b.Release(), /*client=*/false, 3, 5);
  const uint16_t port = CrrPort(pair.a.get());
  for (int i = 0; i < 3; ++i) {
    net::UniqueFd conn = ConnectTo(port);
    ASSERT_EQ(send(conn.get(), "abc", 3, 0), 3);
    char got[8];
    EXPECT_EQ(recv(conn.get(), got, sizeof got, MSG_WAITALL), 5) << "the response, then EOF";
  }
  EXPECT_TRUE(testing::WaitFor([&] { return server->Snapshot()[0].transactions == 3; }));
  // A connection without its request: the server sits in recv(2) on it (an accepted socket
  // inherits the listener's timeouts) when the test stops.
  net::UniqueFd idle = ConnectTo(port);
  ASSERT_EQ(send(idle.get(), "a", 1, 0), 1);
  // The server has accepted it and read the byte: it is in recv(2) for the rest.
  EXPECT_TRUE(nicbench::testing::WaitUntil(
      [&] { return nicbench::testing::PeerUnreadBytes(idle.get()) == 0; }));
  server->Stop();
  EXPECT_TRUE(server->Join());
  const FlowCounters c = server->Snapshot()[0];
  EXPECT_EQ(c.transactions, 3u);
  EXPECT_EQ(c.bytes, 9u);
}

constexpr const char* kToken = "0123456789abcdef0123456789abcdef";

// Between nicbench ends each CRR connection begins with the test's token: both paths count
// exactly with it, and its bytes are not counted as the request's.
TEST(RrFlow, CrrWithTheTestsTokenCountsExactly) {
  ExpectExact(Exchange(testing::TcpPair(), record::Transport::kTcp, record::RrMode::kCrr, 40, 2,
                       /*alone=*/false, 0, kToken),
              40);
  ExpectExact(Exchange(testing::TcpPair(), record::Transport::kTcp, record::RrMode::kCrr, 40, 1,
                       /*alone=*/true, 0, kToken),
              40);
}

// A connection from the client's own address that does not begin with the token (another
// process on the client's host) is closed unanswered and not counted, on both paths; a quiet
// one does not hold the lone loop for longer than the token's wait.
TEST(RrFlow, CrrServerCountsOnlyConnectionsWithTheToken) {
  for (bool alone : {true, false}) {
    testing::SocketPair pair = testing::TcpPair();
    auto server = StartLoneCrr(pair.b.Release(), /*client=*/false, 3, 5, kToken, alone);
    const uint16_t port = CrrPort(pair.a.get());
    net::UniqueFd quiet = ConnectTo(port);
    for (const std::string& request :
         {std::string("abc"), std::string(kToken).substr(0, 31) + "Xabc", std::string(40, 'z')}) {
      net::UniqueFd foreign = ConnectTo(port);
      ASSERT_EQ(send(foreign.get(), request.data(), request.size(), 0),
                static_cast<ssize_t>(request.size()));
      char got[8];
      EXPECT_LE(recv(foreign.get(), got, sizeof got, MSG_WAITALL), 0) << "closed unanswered";
    }
    const std::string good = std::string(kToken) + "abc";
    for (int i = 0; i < 2; ++i) {
      net::UniqueFd conn = ConnectTo(port);
      ASSERT_EQ(send(conn.get(), good.data(), good.size(), 0), static_cast<ssize_t>(good.size()));
      char got[8];
      EXPECT_EQ(recv(conn.get(), got, sizeof got, MSG_WAITALL), 5) << "alone " << alone;
    }
    EXPECT_TRUE(testing::WaitFor([&] { return server->Snapshot()[0].transactions == 2; }));
    server->Stop();
    EXPECT_TRUE(server->Join());
    const FlowCounters c = server->Snapshot()[0];
    EXPECT_EQ(c.transactions, 2u) << "alone " << alone;
    EXPECT_EQ(c.bytes, 6u) << "only the good connections' requests, without the token";
  }
}

TEST(RrFlow, LoneCrrClientCountsExactlyAndStopsWhileBlocked) {
  testing::SocketPair pair = testing::TcpPair();
  auto listener = net::Listen(*net::SocketAddress::FromNumeric("127.0.0.1", 0), 16, {});
  ASSERT_TRUE(listener);
  const uint16_t port = net::SocketAddress::Local(listener->get())->port();
  auto client = StartLoneCrr(pair.a.Release(), /*client=*/true, 2, 4);
  const uint8_t wire[2] = {static_cast<uint8_t>(port >> 8), static_cast<uint8_t>(port)};
  ASSERT_EQ(send(pair.b.get(), wire, 2, 0), 2);
  // The test plays the server: three answered transactions, then a request left unanswered,
  // so the client sits in recv(2) for its response when the test stops.
  for (int i = 0; i < 4; ++i) {
    auto conn = net::Accept(listener->get());
    ASSERT_TRUE(conn);
    char req[2];
    ASSERT_EQ(recv(conn->get(), req, 2, MSG_WAITALL), 2);
    if (i == 3) {
      client->Stop();
      EXPECT_TRUE(client->Join());
      break;
    }
    ASSERT_EQ(send(conn->get(), "wxyz", 4, 0), 4);
  }
  const FlowCounters got = client->Snapshot()[0];
  EXPECT_EQ(got.transactions, 3u);
  ASSERT_TRUE(got.latency);
  EXPECT_EQ(got.latency->count(), 3u);
  ASSERT_TRUE(got.connect_latency);
  EXPECT_EQ(got.connect_latency->count(), 4u) << "the fourth connection was made";
  EXPECT_EQ(got.bytes, 8u);
}

// A lone CRR client closes a connection only once the next connection's request is out
// (CloseFinished), so the close overlaps the server's work on it. The test plays the server on
// a listener whose accept queue it keeps full after answering the first connection: the
// client's next connect then waits (its SYN is dropped until the queue has room, and comes
// again after about a second), and the answered connection must stay open all that while.
TEST(RrFlow, LoneCrrClientClosesAConnectionAfterTheNextRequest) {
  testing::SocketPair pair = testing::TcpPair();
  auto listener = net::Listen(*net::SocketAddress::FromNumeric("127.0.0.1", 0), /*backlog=*/1, {});
  ASSERT_TRUE(listener);
  const uint16_t port = net::SocketAddress::Local(listener->get())->port();
  auto client = StartLoneCrr(pair.a.Release(), /*client=*/true, 1, 1);
  const uint8_t wire[2] = {static_cast<uint8_t>(port >> 8), static_cast<uint8_t>(port)};
  ASSERT_EQ(send(pair.b.get(), wire, 2, 0), 2);
  auto first = net::Accept(listener->get());
  ASSERT_TRUE(first);
  char byte;
  ASSERT_EQ(recv(first->get(), &byte, 1, MSG_WAITALL), 1);
  // Two connections of the test's own fill the queue (a backlog of 1 holds two).
  net::UniqueFd fill_a = ConnectTo(port), fill_b = ConnectTo(port);
  ASSERT_EQ(send(first->get(), "r", 1, 0), 1);
  ASSERT_EQ(shutdown(first->get(), SHUT_WR), 0);
  pollfd answered{first->get(), POLLIN, 0};
  EXPECT_EQ(poll(&answered, 1, 300), 0)
      << "the client closed the answered connection before its next request was out";
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(net::Accept(listener->get()));  // room in the queue
  auto second = net::Accept(listener->get());  // the client's SYN, sent again
  ASSERT_TRUE(second);
  ASSERT_EQ(recv(second->get(), &byte, 1, MSG_WAITALL), 1);
  EXPECT_EQ(recv(first->get(), &byte, 1, 0), 0) << "then it closed the answered connection";
  client->Stop();
  EXPECT_TRUE(client->Join());
  EXPECT_EQ(client->Snapshot()[0].transactions, 1u);
}

int MaxSegment(int fd) {
  int mss = 0;
  socklen_t len = sizeof mss;
  EXPECT_EQ(getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len), 0);
  return mss;
}

// A data connection from 127.0.0.2 (as `-B 127.0.0.2` makes it) to a listener on 127.0.0.1.
testing::SocketPair PairFromSecondAddress() {
  auto listener = net::Listen(*net::SocketAddress::FromNumeric("127.0.0.1", 0), 4, {});
  EXPECT_TRUE(listener);
  const uint16_t port = net::SocketAddress::Local(listener->get())->port();
  auto client = net::Connect(*net::SocketAddress::FromNumeric("127.0.0.1", port), "127.0.0.2", 0,
                             {}, std::chrono::milliseconds(5000));
  EXPECT_TRUE(client) << client.error().ToString();
  auto server = net::Accept(listener->get());
  EXPECT_TRUE(server);
  return testing::SocketPair{std::move(*client), std::move(*server)};
}

// A CRR client's connections are made as its data connection was: from its -B address, with
// the test's options (a 1000-byte MSS is what the test's end of each connection sees), on the
// lone path and on the epoll path.
TEST(RrFlow, CrrClientConnectionsTakeTheTestsOptionsAndLocalAddress) {
  for (bool alone : {true, false}) {
    SCOPED_TRACE(alone ? "lone" : "epoll");
    testing::SocketPair pair = PairFromSecondAddress();
    auto listener = net::Listen(*net::SocketAddress::FromNumeric("127.0.0.1", 0), 16, {});
    ASSERT_TRUE(listener);
    const uint16_t port = net::SocketAddress::Local(listener->get())->port();
    auto client = DataPath::Create(1);
    FlowConfig c = RrConfig(pair.a.Release(), true, record::Transport::kTcp, record::RrMode::kCrr);
    c.rr_alone = alone;
    c.crr_options.mss = 1000;
    c.crr_bind_local = true;
    ASSERT_TRUE(client->AddFlow(c));
    client->SetBudget(SendBudget{0, 2});
    ASSERT_TRUE(client->Start());
    const uint8_t wire[2] = {static_cast<uint8_t>(port >> 8), static_cast<uint8_t>(port)};
    ASSERT_EQ(send(pair.b.get(), wire, 2, 0), 2);
    for (int i = 0; i < 2; ++i) {
      net::SocketAddress from;
      auto conn = net::Accept(listener->get(), &from);
      ASSERT_TRUE(conn);
      EXPECT_EQ(from.HostString(), "127.0.0.2");
      EXPECT_LE(MaxSegment(conn->get()), 1000);
      char req;
      ASSERT_EQ(recv(conn->get(), &req, 1, MSG_WAITALL), 1);
      ASSERT_EQ(send(conn->get(), "r", 1, 0), 1);
    }
    EXPECT_TRUE(testing::WaitReadable(client->DoneFd(), std::chrono::milliseconds(30000)));
    client->Stop();
    EXPECT_TRUE(client->Join());
    EXPECT_EQ(client->Snapshot()[0].transactions, 2u);
  }
}

// The server end's per-flow listener has the test's options, and what it accepts keeps them.
TEST(RrFlow, CrrServerListenerTakesTheTestsOptions) {
  testing::SocketPair pair = testing::TcpPair();
  auto server = DataPath::Create(1);
  FlowConfig s = RrConfig(pair.b.Release(), false, record::Transport::kTcp, record::RrMode::kCrr);
  s.crr_options.mss = 1000;
  ASSERT_TRUE(server->AddFlow(s));
  ASSERT_TRUE(server->Start());
  net::UniqueFd conn = ConnectTo(CrrPort(pair.a.get()));
  ASSERT_EQ(send(conn.get(), "q", 1, 0), 1);
  char got;
  EXPECT_EQ(recv(conn.get(), &got, 1, MSG_WAITALL), 1);
  EXPECT_LE(MaxSegment(conn.get()), 1000) << "the server's SYN-ACK carried its 1000-byte MSS";
  server->Stop();
  EXPECT_TRUE(server->Join());
}

uint16_t LocalPort(int fd) {
  sockaddr_in local{};
  socklen_t len = sizeof local;
  EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len), 0);
  return ntohs(local.sin_port);
}

// The state (hex, as /proc/net/tcp writes it: 01 established, 03 SYN_RECV) of the IPv4 socket
// with this local and remote port, or "" when there is none.
std::string TcpState(uint16_t local_port, uint16_t remote_port) {
  std::ifstream table("/proc/net/tcp");
  std::string line;
  std::getline(table, line);  // the header
  while (std::getline(table, line)) {
    unsigned local_addr = 0, local = 0, remote_addr = 0, remote = 0, state = 0;
    if (std::sscanf(line.c_str(), " %*d: %8X:%4X %8X:%4X %2X", &local_addr, &local, &remote_addr,
                    &remote, &state) == 5 &&
        local == local_port && remote == remote_port) {
      char hex[3];
      std::snprintf(hex, sizeof hex, "%02X", state);
      return hex;
    }
  }
  return "";
}

// The lone server's listener has no TCP_DEFER_ACCEPT: a connection is established on the
// server's side at the handshake, before its request, so the server's wake-up overlaps the
// client's send. The epoll path's listener has it: the connection stays in SYN_RECV on the
// server's side until its request comes, so the server takes it in one event (rr_crr.cc).
TEST(RrFlow, CrrServerTakesAConnectionAtTheHandshakeOnlyWhenAlone) {
  for (const bool alone : {false, true}) {
    testing::SocketPair pair = testing::TcpPair();
    auto server = DataPath::Create(1);
    FlowConfig s = RrConfig(pair.b.Release(), false, record::Transport::kTcp, record::RrMode::kCrr);
    s.rr_alone = alone;
    ASSERT_TRUE(server->AddFlow(s));
    ASSERT_TRUE(server->Start());
    const uint16_t port = CrrPort(pair.a.get());
    net::UniqueFd conn = ConnectTo(port);
    if (alone) {
      EXPECT_TRUE(testing::WaitFor([&] { return TcpState(port, LocalPort(conn.get())) == "01"; }))
          << "the lone server's end stayed in SYN_RECV until the request";
    } else {
      EXPECT_EQ(TcpState(port, LocalPort(conn.get())), "03") << "accepted before its request";
    }
    ASSERT_EQ(send(conn.get(), "q", 1, 0), 1);
    char got[2];
    EXPECT_EQ(recv(conn.get(), got, sizeof got, MSG_WAITALL), 1) << "the response, then EOF";
    server->Stop();
    EXPECT_TRUE(server->Join());
    EXPECT_EQ(server->Snapshot()[0].transactions, 1u);
  }
}

TEST(RrFlow, UdpRequestWithoutResponseIsLostAndTheFlowGoesOn) {
  testing::SocketPair pair = testing::UdpPair();
  auto client = DataPath::Create(1);
  FlowConfig c = RrConfig(pair.a.Release(), true, record::Transport::kUdp, record::RrMode::kRr);
  c.rr.timeout_ms = 5;
  c.pacing_timer_us = 1000;
  ASSERT_TRUE(client->AddFlow(c));
  client->SetBudget(SendBudget{0, 3});
  ASSERT_TRUE(client->Start());
  // Nobody answers: three requests go out one after another, each lost after its timeout.
  EXPECT_TRUE(testing::WaitReadable(client->DoneFd(), std::chrono::milliseconds(30000)));
  FlowCounters counters = client->Snapshot()[0];
  EXPECT_EQ(counters.rr_lost, 3u);
  EXPECT_EQ(counters.transactions, 0u);
  EXPECT_EQ(counters.bytes, 3u);
  client->Stop();
  EXPECT_TRUE(client->Join());
}

// The client of one UDP flow against a responder that answers 8 ms after a request, past the
// client's 5 ms timeout (a slower host only makes the answer later still). Nothing here waits
// for a time to pass: each path gets a wait the answer cannot miss.
// - The lone blocking path: every request is answered, and the client's --rr-spin poll (10 s)
//   lasts until the answer comes, so each answer is caught by the wait it belongs to.
// - The epoll path: only the first request is answered, and the client sends 40 more, each
//   lost after its timeout, so the late answer has 200 ms to arrive while the flow still runs.
void ExpectLateResponsesLost(bool alone) {
  const uint64_t requests = alone ? 3 : 40;
  const uint64_t answered = alone ? requests : 1;
  testing::SocketPair pair = testing::UdpPair();
  const int server_fd = pair.b.get();
  std::thread server([server_fd, answered] {
    char buf[64];
    for (uint64_t i = 0;; ++i) {
      const ssize_t n = ::recv(server_fd, buf, sizeof buf, 0);
      if (n <= 0) return;
      if (i >= answered) continue;
      std::this_thread::sleep_for(std::chrono::milliseconds(8));  // the lateness under test
      (void)::send(server_fd, buf, static_cast<size_t>(n), 0);
    }
  });
  auto client = DataPath::Create(1);
  FlowConfig c = RrConfig(pair.a.Release(), true, record::Transport::kUdp, record::RrMode::kRr);
  c.rr.timeout_ms = 5;
  c.rr.spin_us = alone ? 10'000'000 : 10'000;
  c.rr_alone = alone;
  client->SetBudget(SendBudget{0, requests});
  const bool started = client->AddFlow(c) && client->Start();
  EXPECT_TRUE(started);
  if (started) {
    EXPECT_TRUE(testing::WaitReadable(client->DoneFd(), std::chrono::milliseconds(30000)));
  }
  ::shutdown(server_fd, SHUT_RDWR);  // a responder still waiting for a request gives up
  server.join();
  client->Stop();
  EXPECT_TRUE(client->Join());
  FlowCounters counters = client->Snapshot()[0];
  EXPECT_EQ(counters.transactions, 0u);
  EXPECT_EQ(counters.rr_lost, requests);
  EXPECT_GE(counters.rr_late, 1u);
}

// A response that comes after --rr-timeout is lost and late, even when the client's wait (here
// a --rr-spin poll longer than the timeout) is still under way when it comes; on the lone
// blocking path and on the epoll path alike.
TEST(RrFlow, UdpResponseAfterTheTimeoutIsLostAndLate) {
  for (const bool alone : {true, false}) {
    SCOPED_TRACE(alone ? "lone flow" : "epoll path");
    ExpectLateResponsesLost(alone);
  }
}

}  // namespace
}  // namespace nicbench::engine
