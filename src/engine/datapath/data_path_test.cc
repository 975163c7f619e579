#include "engine/datapath/data_path.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <numeric>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/datapath/data_path_test_util.h"
#include "net/fake_sys_calls.h"

namespace nicbench::engine {
namespace {

using namespace std::chrono_literals;
using testing::Counters;
using testing::SocketPair;
using testing::TcpPair;
using testing::UdpPair;
using testing::WaitFor;
using testing::WaitReadable;

FlowConfig Tcp(net::UniqueFd& fd, int id, bool sender, uint32_t block = 128 * 1024) {
  FlowConfig c;
  c.fd = fd.Release();
  c.id = id;
  c.sender = sender;
  c.block_bytes = block;
  return c;
}

FlowConfig Udp(net::UniqueFd& fd, int id, bool sender, uint32_t block) {
  FlowConfig c = Tcp(fd, id, sender, block);
  c.transport = record::Transport::kUdp;
  return c;
}

// Sends exactly `budget` bytes over one TCP connection and checks both ends count them.
void RunTcpBudget(record::ZeroCopy zero_copy, bool skip_rx_copy) {
  SocketPair pair = TcpPair();
  auto dp = DataPath::Create(2);
  FlowConfig tx = Tcp(pair.a, 1, true);
  tx.zero_copy = zero_copy;
  FlowConfig rx = Tcp(pair.b, 2, false);
  rx.skip_rx_copy = skip_rx_copy;
  ASSERT_TRUE(dp->AddFlow(tx));
  ASSERT_TRUE(dp->AddFlow(rx));
  const uint64_t budget = 8 * 1024 * 1024 + 777;
  dp->SetBudget(SendBudget{.bytes = budget, .blocks = 0});
  ASSERT_TRUE(dp->Start());
  ASSERT_TRUE(WaitReadable(dp->DoneFd(), 30s)) << "sender never finished";
  ASSERT_TRUE(WaitFor([&] { return Counters(*dp, 2).bytes >= budget; }));
  const auto status = dp->Join();
  ASSERT_TRUE(status) << status.error().ToString();
  EXPECT_EQ(Counters(*dp, 1).bytes, budget);
  EXPECT_EQ(Counters(*dp, 2).bytes, budget);
  EXPECT_EQ(Counters(*dp, 1).blocks, 65u);  // 64 whole blocks and the 777-byte remainder
  EXPECT_GT(Counters(*dp, 2).blocks, 0u);
}

TEST(DataPathTest, TcpByteBudgetArrivesExactly) { RunTcpBudget(record::ZeroCopy::kOff, false); }
TEST(DataPathTest, SendfileAndMsgTruncMoveTheBudget) {
  RunTcpBudget(record::ZeroCopy::kSendfile, true);
}
TEST(DataPathTest, MsgZerocopyMovesTheBudget) {
  RunTcpBudget(record::ZeroCopy::kMsgZerocopy, false);
}

TEST(DataPathTest, BlockBudgetCountsWholeBlocks) {
  SocketPair pair = TcpPair();
  auto dp = DataPath::Create(1);
  ASSERT_TRUE(dp->AddFlow(Tcp(pair.a, 1, true, 65536)));
  ASSERT_TRUE(dp->AddFlow(Tcp(pair.b, 2, false, 65536)));
  dp->SetBudget(SendBudget{.bytes = 0, .blocks = 10});
  ASSERT_TRUE(dp->Start());
  ASSERT_TRUE(WaitReadable(dp->DoneFd(), 30s));
  ASSERT_TRUE(WaitFor([&] { return Counters(*dp, 2).bytes >= 655360; }));
  ASSERT_TRUE(dp->Join());
  EXPECT_EQ(Counters(*dp, 1).blocks, 10u);
  EXPECT_EQ(Counters(*dp, 1).bytes, 655360u);
  EXPECT_EQ(Counters(*dp, 2).bytes, 655360u);
}

TEST(DataPathTest, RepeatingPayloadArrivesAsDigits) {
  SocketPair pair = TcpPair();
  auto dp = DataPath::Create(1);
  FlowConfig tx = Tcp(pair.a, 1, true, 100);
  tx.repeating_payload = true;
  ASSERT_TRUE(dp->AddFlow(tx));
  dp->SetBudget(SendBudget{.bytes = 25, .blocks = 0});
  ASSERT_TRUE(dp->Start());
  ASSERT_TRUE(WaitReadable(dp->DoneFd(), 30s));
  char got[26] = {};
  ASSERT_EQ(recv(pair.b.get(), got, 25, MSG_WAITALL), 25);
  EXPECT_STREQ(got, "0123456789012345678901234");
  ASSERT_TRUE(dp->Join());
}

TEST(DataPathTest, UdpPacedFlowLosesNothingOnLoopback) {
  for (bool counters64 : {false, true}) {
    SCOPED_TRACE(counters64 ? "64-bit counters" : "32-bit counters");
    SocketPair pair = UdpPair();
    // Room for every datagram of the test, so a receiver thread descheduled for a while on a
    // busy machine cannot overflow the socket (SO_RCVBUFFORCE needs CAP_NET_ADMIN; without it
    // the default buffer still holds ~90 datagrams, ~40 ms at this rate).
    const int big = 8 << 20;
    (void)setsockopt(pair.b.get(), SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
    auto dp = DataPath::Create(2);
    FlowConfig tx = Udp(pair.a, 1, true, 1200);
    tx.rate_bits_per_second = 20'000'000;
    tx.udp_counters_64bit = counters64;
    FlowConfig rx = Udp(pair.b, 2, false, 1200);
    rx.udp_counters_64bit = counters64;
    ASSERT_TRUE(dp->AddFlow(tx));
    ASSERT_TRUE(dp->AddFlow(rx));
    dp->SetBudget(SendBudget{.bytes = 0, .blocks = 1000});
    ASSERT_TRUE(dp->Start());
    ASSERT_TRUE(WaitReadable(dp->DoneFd(), 30s));
    ASSERT_TRUE(WaitFor([&] { return Counters(*dp, 2).blocks >= 1000; }, 10s))
        << "received " << Counters(*dp, 2).blocks;
    ASSERT_TRUE(dp->Join());
    const FlowCounters sent = Counters(*dp, 1);
    const FlowCounters got = Counters(*dp, 2);
    EXPECT_EQ(sent.packets, 1000u);
    EXPECT_EQ(sent.bytes, 1'200'000u);
    EXPECT_EQ(got.packets, 1000u);  // highest sequence seen: 1..1000
    EXPECT_EQ(got.lost, 0u);
    EXPECT_EQ(got.out_of_order, 0u);
    EXPECT_EQ(got.bytes, 1'200'000u);
    EXPECT_TRUE(std::isfinite(got.jitter_seconds));
    EXPECT_GE(got.jitter_seconds, 0.0);
  }
}

TEST(DataPathTest, UdpSenderRetriesTheSameDatagramAfterEnobufs) {
  SocketPair pair = UdpPair();
  net::FakeSysCalls sys;
  sys.FailAt(net::FakeSysCalls::Kind::kSendMmsg, 10, ENOBUFS);
  auto dp = DataPath::Create(2, &sys);
  FlowConfig tx = Udp(pair.a, 1, true, 512);
  tx.rate_bits_per_second = 10'000'000;
  ASSERT_TRUE(dp->AddFlow(tx));
  ASSERT_TRUE(dp->AddFlow(Udp(pair.b, 2, false, 512)));
  dp->SetBudget(SendBudget{.bytes = 0, .blocks = 100});
  ASSERT_TRUE(dp->Start());
  ASSERT_TRUE(WaitReadable(dp->DoneFd(), 30s));
  ASSERT_TRUE(WaitFor([&] { return Counters(*dp, 2).blocks >= 100; }, 10s));
  ASSERT_TRUE(dp->Join());
  EXPECT_EQ(sys.injected(), 1u);
  EXPECT_EQ(Counters(*dp, 1).packets, 100u);
  EXPECT_EQ(Counters(*dp, 2).packets, 100u);
  EXPECT_EQ(Counters(*dp, 2).lost, 0u);  // no sequence number was skipped
}

TEST(DataPathTest, TcpPacingLandsNearTheRate) {
  SocketPair pair = TcpPair();
  auto dp = DataPath::Create(1);
  FlowConfig tx = Tcp(pair.a, 1, true, 16 * 1024);
  tx.rate_bits_per_second = 20'000'000;
  ASSERT_TRUE(dp->AddFlow(tx));
  ASSERT_TRUE(dp->AddFlow(Tcp(pair.b, 2, false, 16 * 1024)));
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(dp->Start());
  // The window the pacer is judged over (the thing under test, not a wait for an event); the
  // expectation uses the elapsed time measured, so a late wake-up here only lengthens it.
  std::this_thread::sleep_for(1s);
  const uint64_t bytes = Counters(*dp, 1).bytes;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(dp->Join());
  const double expected = 20e6 / 8 * elapsed;
  // A correctness check of the pacer (unpaced loopback moves 100x this), not a benchmark.
  EXPECT_GT(bytes, expected * 0.8);
  EXPECT_LT(bytes, expected * 1.2);
}

TEST(DataPathTest, StopEndsAnUnlimitedTestAndJoinIsOk) {
  SocketPair pair = TcpPair();
  auto dp = DataPath::Create(2);
  ASSERT_TRUE(dp->AddFlow(Tcp(pair.a, 1, true)));
  ASSERT_TRUE(dp->AddFlow(Tcp(pair.b, 2, false)));
  ASSERT_TRUE(dp->Start());
  ASSERT_TRUE(WaitFor([&] { return Counters(*dp, 2).bytes > (4u << 20); }));
  dp->Stop();
  dp->Stop();  // idempotent
  const auto status = dp->Join();
  EXPECT_TRUE(status) << status.error().ToString();
  EXPECT_TRUE(dp->Join());
  EXPECT_GE(Counters(*dp, 1).bytes, Counters(*dp, 2).bytes);
}

TEST(WorkerThreadsFor, AThreadPerFlowForFewFlowsOnePerCpuBeyond) {
  EXPECT_EQ(WorkerThreadsFor(0, 1), 1);
  EXPECT_EQ(WorkerThreadsFor(0, kThreadPerFlowMax), kThreadPerFlowMax);
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(WorkerThreadsFor(0, 1000), std::min(cpus, 1000));
  EXPECT_EQ(WorkerThreadsFor(3, 1000), 3);  // --threads wins
  EXPECT_EQ(WorkerThreadsFor(8, 2), 2);     // never more threads than flows
}

// Four zero-copy senders and their receivers on the default threads: every flow alone on its
// worker, in blocking sendfile/recv; what each receiver counts is what its sender sent.
TEST(DataPathTest, FewSendfileFlowsEachOnItsOwnThreadCountExactly) {
  std::vector<SocketPair> pairs;
  for (int i = 0; i < 4; ++i) pairs.push_back(TcpPair());
  auto senders = DataPath::Create(0);
  auto receivers = DataPath::Create(0);
  for (int i = 0; i < 4; ++i) {
    FlowConfig tx = Tcp(pairs[i].a, i + 1, true);
    tx.zero_copy = record::ZeroCopy::kSendfile;
    ASSERT_TRUE(senders->AddFlow(tx));
    ASSERT_TRUE(receivers->AddFlow(Tcp(pairs[i].b, i + 1, false)));
  }
  ASSERT_TRUE(receivers->Start());
  ASSERT_TRUE(senders->Start());
  ASSERT_TRUE(WaitFor([&] {
    for (int i = 1; i <= 4; ++i) {
      if (Counters(*receivers, i).bytes < (2u << 20)) return false;
    }
    return true;
  })) << "a stream made no progress";
  ASSERT_TRUE(senders->Join());
  for (int i = 1; i <= 4; ++i) {
    ::shutdown(senders->FlowFd(i), SHUT_WR);  // a FIN behind the last byte sent
    ASSERT_TRUE(WaitFor([&] {
      return Counters(*receivers, i).bytes == Counters(*senders, i).bytes;
    })) << "stream "
        << i << ": received " << Counters(*receivers, i).bytes << " of "
        << Counters(*senders, i).bytes;
  }
  ASSERT_TRUE(receivers->Join());
}

TEST(DataPathTest, PeerResetBeforeStopIsReportedByJoin) {
  SocketPair pair = TcpPair();
  // SO_LINGER 0: close sends RST instead of FIN.
  linger hard{1, 0};
  ASSERT_EQ(setsockopt(pair.b.get(), SOL_SOCKET, SO_LINGER, &hard, sizeof(hard)), 0);
  pair.b.Reset();
  auto dp = DataPath::Create(1);
  ASSERT_TRUE(dp->AddFlow(Tcp(pair.a, 5, true)));
  ASSERT_TRUE(dp->Start());
  // A failed sender counts as finished, so the controller wakes up.
  ASSERT_TRUE(WaitReadable(dp->DoneFd(), 30s));
  EXPECT_TRUE(dp->Failed());
  const auto status = dp->Join();
  ASSERT_FALSE(status);
  EXPECT_TRUE(status.error().sys_errno == ECONNRESET || status.error().sys_errno == EPIPE)
      << status.error().ToString();
  EXPECT_NE(status.error().message.find("stream 5"), std::string::npos) << status.error().message;
}

TEST(DataPathTest, ReceiverResetBeforeStopIsReportedByJoin) {
  SocketPair pair = TcpPair();
  linger hard{1, 0};
  ASSERT_EQ(setsockopt(pair.a.get(), SOL_SOCKET, SO_LINGER, &hard, sizeof(hard)), 0);
  auto dp = DataPath::Create(1);
  ASSERT_TRUE(dp->AddFlow(Tcp(pair.b, 2, false)));
  ASSERT_TRUE(dp->Start());
  pair.a.Reset();
  ASSERT_TRUE(WaitFor([&] { return dp->Failed(); }));
  const auto status = dp->Join();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().sys_errno, ECONNRESET) << status.error().ToString();
}

TEST(DataPathTest, InjectedEpipeMidStreamFailsTheFlow) {
  SocketPair pair = TcpPair();
  net::FakeSysCalls sys;
  sys.FailAt(net::FakeSysCalls::Kind::kSend, 5, EPIPE);
  auto dp = DataPath::Create(2, &sys);
  ASSERT_TRUE(dp->AddFlow(Tcp(pair.a, 7, true, 4096)));
  ASSERT_TRUE(dp->AddFlow(Tcp(pair.b, 8, false, 4096)));
  ASSERT_TRUE(dp->Start());
  ASSERT_TRUE(WaitReadable(dp->DoneFd(), 30s));
  const auto status = dp->Join();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().sys_errno, EPIPE);
  EXPECT_NE(status.error().message.find("stream 7: send"), std::string::npos)
      << status.error().message;
  EXPECT_EQ(Counters(*dp, 7).bytes, 4u * 4096);  // the four sends before the failure
}

TEST(DataPathTest, ReceiverEofEndsTheFlowCleanly) {
  SocketPair pair = TcpPair();
  auto dp = DataPath::Create(1);
  ASSERT_TRUE(dp->AddFlow(Tcp(pair.b, 2, false)));
  ASSERT_TRUE(dp->Start());
  std::vector<char> data(100'000, 'x');
  ASSERT_EQ(send(pair.a.get(), data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
  pair.a.Reset();  // FIN
  ASSERT_TRUE(WaitFor([&] { return Counters(*dp, 2).bytes >= data.size(); }));
  EXPECT_FALSE(WaitReadable(dp->DoneFd(), 0ms)) << "no senders: DoneFd is never signalled";
  const auto status = dp->Join();
  EXPECT_TRUE(status) << status.error().ToString();
  EXPECT_EQ(Counters(*dp, 2).bytes, data.size());
}

TEST(DataPathTest, ManyFlowsOverTwoThreads) {
  constexpr int kPairs = 64;  // 128 flows
  std::vector<SocketPair> pairs;
  for (int i = 0; i < kPairs; ++i) pairs.push_back(TcpPair());
  auto dp = DataPath::Create(2);
  for (int i = 0; i < kPairs; ++i) {
    ASSERT_TRUE(dp->AddFlow(Tcp(pairs[i].a, 2 * i + 1, true, 32 * 1024)));
    ASSERT_TRUE(dp->AddFlow(Tcp(pairs[i].b, 2 * i + 2, false, 32 * 1024)));
  }
  const uint64_t budget = kPairs * 256 * 1024 + 12345;
  dp->SetBudget(SendBudget{.bytes = budget, .blocks = 0});
  ASSERT_TRUE(dp->Start());
  ASSERT_TRUE(WaitReadable(dp->DoneFd(), 60s));
  auto sum = [&](bool sender) {
    uint64_t total = 0;
    for (const FlowCounters& c : dp->Snapshot()) total += c.sender == sender ? c.bytes : 0;
    return total;
  };
  ASSERT_TRUE(WaitFor([&] { return sum(false) >= budget; }));
  const auto status = dp->Join();
  ASSERT_TRUE(status) << status.error().ToString();
  EXPECT_EQ(sum(true), budget);
  EXPECT_EQ(sum(false), budget);
  EXPECT_EQ(dp->Snapshot().size(), 2u * kPairs);
}

TEST(DataPathTest, FlowFdAndBadConfigs) {
  SocketPair pair = TcpPair();
  const int raw = pair.a.get();
  auto dp = DataPath::Create(1);
  ASSERT_TRUE(dp->AddFlow(Tcp(pair.a, 3, true)));
  EXPECT_EQ(dp->FlowFd(3), raw);
  EXPECT_EQ(dp->FlowFd(99), -1);

  FlowConfig none;
  none.fd = -1;
  EXPECT_FALSE(dp->AddFlow(none));
  SocketPair udp = UdpPair();
  auto tiny = dp->AddFlow(Udp(udp.a, 4, true, 8));  // cannot hold the 12-byte header
  ASSERT_FALSE(tiny);
  EXPECT_NE(tiny.error().message.find("header"), std::string::npos);
  ASSERT_TRUE(dp->Start());
  ASSERT_TRUE(dp->Join());
}

TEST(DataPathTest, EmptyDataPathStartsAndJoins) {
  auto dp = DataPath::Create(0);
  ASSERT_TRUE(dp->Start());
  EXPECT_GE(dp->DoneFd(), 0);
  EXPECT_TRUE(dp->Snapshot().empty());
  EXPECT_TRUE(dp->Join());
}

}  // namespace
}  // namespace nicbench::engine
