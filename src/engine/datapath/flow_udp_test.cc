// UDP flows with batched system calls and segmentation offload, on real loopback sockets: the
// counts on both ends are exact per datagram whatever the batching, GRO receives are split at
// the segment size, and a kernel without the offload (simulated with FakeSysCalls) falls back.
#include "engine/datapath/flow_udp.h"

#include <fcntl.h>
#include <netinet/udp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "engine/datapath/data_path.h"
#include "engine/datapath/data_path_test_util.h"
#include "net/fake_sys_calls.h"
#include "net/udp_offload.h"
#include "protocol/wire.h"

namespace nicbench::engine {
namespace {

using namespace std::chrono_literals;
using testing::Counters;
using testing::SocketPair;
using testing::UdpPair;
using testing::WaitFor;
using testing::WaitReadable;

FlowConfig Udp(net::UniqueFd& fd, int id, bool sender, uint32_t block, bool offload) {
  FlowConfig c;
  c.fd = fd.Release();
  c.id = id;
  c.sender = sender;
  c.block_bytes = block;
  c.transport = record::Transport::kUdp;
  c.udp_offload = offload;
  return c;
}

// Room for every datagram of a test in the receive queue, so a receiver descheduled on a busy
// machine loses nothing (SO_RCVBUFFORCE needs CAP_NET_ADMIN; without it the default is kept).
void BigReceiveBuffer(int fd) {
  const int big = 16 << 20;
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
}

struct Run {
  FlowCounters sent, got;
};

// One paced UDP test of `budget` between two loopback sockets; waits for the receiver to have
// every datagram the sender sent.
Run PacedRun(net::SysCalls* sys, bool offload, uint32_t block, const SendBudget& budget,
             uint64_t rate = 50'000'000) {
  SocketPair pair = UdpPair();
  BigReceiveBuffer(pair.b.get());
  auto dp = sys != nullptr ? DataPath::Create(2, sys) : DataPath::Create(2);
  FlowConfig tx = Udp(pair.a, 1, true, block, offload);
  tx.rate_bits_per_second = rate;
  EXPECT_TRUE(dp->AddFlow(tx));
  EXPECT_TRUE(dp->AddFlow(Udp(pair.b, 2, false, block, offload)));
  dp->SetBudget(budget);
  EXPECT_TRUE(dp->Start());
  EXPECT_TRUE(WaitReadable(dp->DoneFd(), 60s));
  const uint64_t sent = Counters(*dp, 1).packets;
  EXPECT_TRUE(WaitFor([&] { return Counters(*dp, 2).blocks >= sent; }, 20s))
      << "received " << Counters(*dp, 2).blocks << " of " << sent;
  EXPECT_TRUE(dp->Join());
  return Run{Counters(*dp, 1), Counters(*dp, 2)};
}

void ExpectExact(const Run& run, uint64_t datagrams, uint32_t block) {
  EXPECT_EQ(run.sent.packets, datagrams);
  EXPECT_EQ(run.sent.bytes, datagrams * block);
  EXPECT_EQ(run.got.packets, datagrams);  // highest sequence seen: 1..datagrams
  EXPECT_EQ(run.got.blocks, datagrams);   // each datagram counted once
  EXPECT_EQ(run.got.bytes, datagrams * block);
  EXPECT_EQ(run.got.lost, 0u);
  EXPECT_EQ(run.got.out_of_order, 0u);
}

TEST(UdpFlowTest, BatchedCountsAreExactUnderABlockBudget) {
  for (bool offload : {false, true}) {
    SCOPED_TRACE(offload ? "offload" : "sendmmsg/recvmmsg");
    ExpectExact(PacedRun(nullptr, offload, 1400, SendBudget{.bytes = 0, .blocks = 3001}), 3001,
                1400);
  }
}

TEST(UdpFlowTest, BatchedCountsAreExactUnderAByteBudget) {
  // iperf3 sends whole datagrams until the budget is reached: 1,000,000 / 1400 -> 715.
  for (bool offload : {false, true}) {
    SCOPED_TRACE(offload ? "offload" : "sendmmsg/recvmmsg");
    ExpectExact(PacedRun(nullptr, offload, 1400, SendBudget{.bytes = 1'000'000, .blocks = 0}), 715,
                1400);
  }
}

TEST(UdpFlowTest, BurstsAndOddSizesKeepTheCountsExact) {
  // 37-byte datagrams: 64 per batch; 9000-byte ones: 7 per batch and a GSO size above the
  // 1500 of most links (loopback's MTU is 65536).
  for (uint32_t block : {37u, 9000u}) {
    SCOPED_TRACE(block);
    ExpectExact(PacedRun(nullptr, true, block, SendBudget{.bytes = 0, .blocks = 500}, 20'000'000),
                500, block);
  }
}

TEST(UdpFlowTest, AKernelWithoutTheOffloadFallsBackToBatchedCalls) {
  // Linux before 4.18 (UDP_SEGMENT) and 5.0 (UDP_GRO) answers ENOPROTOOPT.
  net::FakeSysCalls sys;
  sys.FailAt(net::FakeSysCalls::Kind::kSetSockOpt, 1, ENOPROTOOPT, /*sticky=*/true);
  ExpectExact(PacedRun(&sys, true, 1400, SendBudget{.bytes = 0, .blocks = 1000}), 1000, 1400);
  EXPECT_EQ(sys.calls(net::FakeSysCalls::Kind::kSetSockOpt), 2u);  // one per end, both refused
  EXPECT_EQ(sys.calls(net::FakeSysCalls::Kind::kSend), 0u);        // no GSO send was tried
  EXPECT_GT(sys.calls(net::FakeSysCalls::Kind::kSendMmsg), 0u);
}

TEST(UdpFlowTest, ARefusedGsoSendFallsBackWithoutLosingASequenceNumber) {
  // udp_send_skb answers EINVAL when a datagram does not fit the path MTU with GSO.
  net::FakeSysCalls sys;
  sys.FailAt(net::FakeSysCalls::Kind::kSend, 1, EINVAL);
  ExpectExact(PacedRun(&sys, true, 1400, SendBudget{.bytes = 0, .blocks = 1000}), 1000, 1400);
  EXPECT_EQ(sys.calls(net::FakeSysCalls::Kind::kSend), 1u);        // the refused one, then sendmmsg
  EXPECT_EQ(sys.calls(net::FakeSysCalls::Kind::kSetSockOpt), 3u);  // GSO on, GRO on, GSO off
}

TEST(UdpFlowTest, OffloadSendsFewerCallsThanDatagrams) {
  net::FakeSysCalls sys;
  ExpectExact(PacedRun(&sys, true, 1400, SendBudget{.bytes = 0, .blocks = 4600}, 200'000'000), 4600,
              1400);
  // At most 46 datagrams a GSO send; a batch of one (the first, when the pacer allows just
  // that) goes through sendmmsg.
  EXPECT_GE(sys.calls(net::FakeSysCalls::Kind::kSend), 100u);
  EXPECT_LT(
      sys.calls(net::FakeSysCalls::Kind::kSend) + sys.calls(net::FakeSysCalls::Kind::kSendMmsg),
      1000u);
}

// True once `fd` has lost O_NONBLOCK: the flow on it runs its blocking path (Flow::RunBlocking).
bool Blocking(int fd) { return (fcntl(fd, F_GETFL) & O_NONBLOCK) == 0; }

TEST(UdpFlowTest, AReceiverAloneOnItsWorkerCountsExactlyAndStopsWhileBlocked) {
  SocketPair pair = UdpPair();
  BigReceiveBuffer(pair.b.get());
  auto dp = DataPath::Create(1);
  ASSERT_TRUE(dp->AddFlow(Udp(pair.b, 2, false, 1400, false)));
  ASSERT_TRUE(dp->Start());
  ASSERT_TRUE(WaitFor([&] { return Blocking(dp->FlowFd(2)); }, 20s));
  // Datagrams 1..300 in order, then 302 (301 lost), then 301 late: the counts iperf3 keeps.
  auto send_seq = [&](uint64_t seq) {
    std::vector<uint8_t> d(1400, 0x5a);
    protocol::UdpHeader h;
    h.sec = 1;
    h.seq = seq;
    protocol::EncodeUdpHeader(h, false, d.data());
    ASSERT_EQ(send(pair.a.get(), d.data(), d.size(), 0), 1400);
  };
  // In groups the default receive buffer holds (SO_RCVBUFFORCE may have been refused), each
  // once the receiver has the one before.
  for (uint64_t seq = 1; seq <= 300; ++seq) {
    send_seq(seq);
    if (seq % 50 == 0) {
      ASSERT_TRUE(WaitFor([&] { return Counters(*dp, 2).blocks >= seq; }, 20s));
    }
  }
  send_seq(302);
  send_seq(301);
  ASSERT_TRUE(WaitFor([&] { return Counters(*dp, 2).blocks >= 302; }, 20s))
      << "received " << Counters(*dp, 2).blocks;
  // Nothing more comes: the receiver sits in recvmmsg when the test stops.
  dp->Stop();
  EXPECT_TRUE(dp->Join());
  const FlowCounters got = Counters(*dp, 2);
  EXPECT_EQ(got.blocks, 302u);
  EXPECT_EQ(got.bytes, 302u * 1400);
  EXPECT_EQ(got.packets, 302u);  // highest sequence seen
  EXPECT_EQ(got.out_of_order, 1u);
  EXPECT_EQ(got.lost, 0u);  // 301 came, late
}

TEST(UdpFlowTest, AnUnpacedSenderAloneMeetsItsBudgetAndEveryDatagramIsAccounted) {
  SocketPair pair = UdpPair();
  BigReceiveBuffer(pair.b.get());
  net::FakeSysCalls sys;
  auto dp = DataPath::Create(2, &sys);  // one flow per worker: both run blocking
  ASSERT_TRUE(dp->AddFlow(Udp(pair.a, 1, true, 1400, false)));
  ASSERT_TRUE(dp->AddFlow(Udp(pair.b, 2, false, 1400, false)));
  dp->SetBudget(SendBudget{.bytes = 0, .blocks = 5000});
  ASSERT_TRUE(dp->Start());
  ASSERT_TRUE(WaitReadable(dp->DoneFd(), 60s));
  const FlowCounters sent = Counters(*dp, 1);
  EXPECT_EQ(sent.packets, 5000u);
  EXPECT_EQ(sent.bytes, 5000u * 1400);
  // Unpaced, the receiver may fall behind and the kernel drop some where the receive buffer
  // could not be made big (SO_RCVBUFFORCE needs CAP_NET_ADMIN): what came is counted once each,
  // and every sequence up to the highest seen is received or lost, never both.
  int rcvbuf = 0;
  socklen_t len = sizeof rcvbuf;
  ASSERT_EQ(getsockopt(dp->FlowFd(2), SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len), 0);
  const bool room_for_all = rcvbuf >= (16 << 20);
  (void)WaitFor([&] { return Counters(*dp, 2).blocks >= 5000u; }, room_for_all ? 20s : 2s);
  dp->Stop();
  EXPECT_TRUE(dp->Join());
  const FlowCounters got = Counters(*dp, 2);
  EXPECT_EQ(got.bytes, got.blocks * 1400);
  EXPECT_EQ(got.out_of_order, 0u);
  EXPECT_LE(got.packets, 5000u);
  EXPECT_EQ(got.blocks + got.lost, got.packets);
  if (room_for_all) {
    EXPECT_EQ(got.blocks, 5000u);
    EXPECT_EQ(got.lost, 0u);
  }
  // Batches of up to 46 datagrams per sendmmsg.
  EXPECT_LE(sys.calls(net::FakeSysCalls::Kind::kSendMmsg), 5000u / 2);
}

// Writes datagrams seq first..first+count-1 of `block` bytes (the last `last` bytes long) back
// to back, as one GSO send would carry them.
std::vector<uint8_t> Datagrams(uint64_t first, uint32_t count, uint32_t block, uint32_t last) {
  std::vector<uint8_t> out(static_cast<size_t>(block) * (count - 1) + last, 0xab);
  for (uint32_t i = 0; i < count; ++i) {
    protocol::UdpHeader h;
    h.sec = 1;
    h.seq = first + i;
    protocol::EncodeUdpHeader(h, false, out.data() + static_cast<size_t>(i) * block);
  }
  return out;
}

TEST(UdpFlowTest, GroReceivesAreSplitAtTheSegmentSize) {
  SocketPair pair = UdpPair();
  BigReceiveBuffer(pair.b.get());
  net::FakeSysCalls sys;
  SharedBudget budget;
  std::atomic<bool> stopping{false};
  const FlowEnv env{&sys, &budget, &stopping};
  ASSERT_TRUE(net::SetNonBlocking(pair.b.get()));
  const FlowConfig config = Udp(pair.b, 2, false, 1000, true);
  auto rx = MakeFlow(config, net::UniqueFd(config.fd), env);
  ASSERT_TRUE(rx) << rx.error().ToString();
  // Two GSO sends before the receiver reads: 40 datagrams of 1000 bytes, then 3 whose last is
  // 500 bytes. On loopback a GSO packet reaches a UDP_GRO socket whole (udp_unexpected_gso in
  // include/net/udp.h), so each arrives as one receive with the segment size in a cmsg.
  ASSERT_TRUE(net::SetUdpSegment(sys, pair.a.get(), 1000));
  const auto first = Datagrams(1, 40, 1000, 1000);
  const auto second = Datagrams(41, 3, 1000, 500);
  ASSERT_EQ(send(pair.a.get(), first.data(), first.size(), 0), static_cast<ssize_t>(first.size()));
  ASSERT_EQ(send(pair.a.get(), second.data(), second.size(), 0),
            static_cast<ssize_t>(second.size()));
  (*rx)->Begin(std::chrono::steady_clock::now());
  ASSERT_TRUE((*rx)->OnEvents(EPOLLIN));
  const FlowCounters got = (*rx)->Snapshot();
  EXPECT_EQ(got.blocks, 43u);
  EXPECT_EQ(got.bytes, 42'500u);
  EXPECT_EQ(got.packets, 43u);
  EXPECT_EQ(got.lost, 0u);
  EXPECT_EQ(got.out_of_order, 0u);
  // Both sends in one recvmmsg (and one more that found the queue empty, at most).
  EXPECT_LE(sys.calls(net::FakeSysCalls::Kind::kRecvMmsg), 2u);
}

TEST(UdpFlowTest, GroSegmentBytesReadsOnlyTheUdpGroCmsg) {
  alignas(cmsghdr) unsigned char control[net::kGroControlBytes * 2] = {};
  msghdr msg{};
  EXPECT_EQ(net::GroSegmentBytes(msg), 0u);  // no control buffer: one datagram
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SO_TIMESTAMP;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  c = CMSG_NXTHDR(&msg, c);
  ASSERT_NE(c, nullptr);
  c->cmsg_level = SOL_UDP;
  c->cmsg_type = UDP_GRO;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  const int size = 1400;
  memcpy(CMSG_DATA(c), &size, sizeof size);
  EXPECT_EQ(net::GroSegmentBytes(msg), 1400u);
}

TEST(UdpFlowTest, BatchSizeFitsOneDatagramOf64KiB) {
  EXPECT_EQ(UdpSendBatch(1400), 46u);
  EXPECT_EQ(UdpSendBatch(12), 64u);
  EXPECT_EQ(UdpSendBatch(65507), 1u);
}

}  // namespace
}  // namespace nicbench::engine
