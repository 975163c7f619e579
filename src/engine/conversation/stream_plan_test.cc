#include "engine/conversation/stream_plan.h"

#include <gtest/gtest.h>

namespace nicbench::engine {
namespace {

TEST(PlanStreams, IdsSkipTwoAndBidirOrder) {
  record::TestSpec spec;
  spec.parallel = 2;
  spec.direction = record::Direction::kBidirectional;
  auto client = PlanStreams(spec, true);
  auto server = PlanStreams(spec, false);
  ASSERT_EQ(client.size(), 4u);
  EXPECT_EQ(client[0].id, 1);
  EXPECT_EQ(client[1].id, 3);
  EXPECT_EQ(client[2].id, 4);
  EXPECT_EQ(client[3].id, 5);
  EXPECT_TRUE(client[0].sender && client[1].sender);
  EXPECT_FALSE(client[2].sender || client[3].sender);
  for (size_t i = 0; i < 4; ++i) EXPECT_NE(client[i].sender, server[i].sender);
}

// A bulk UDP socket asks for a large receive buffer unless -w chose the buffers; TCP and
// request/response sockets keep the kernel's.
TEST(DataSocketOptions, BulkUdpAsksForALargeReceiveBufferUnlessTheWindowIsSet) {
  record::TestSpec udp;
  udp.transport = record::Transport::kUdp;
  EXPECT_EQ(DataSocketOptions(udp).receive_buffer_bytes, kUdpReceiveBufferBytes);
  record::TestSpec window = udp;
  window.window_bytes = 65536;
  EXPECT_EQ(DataSocketOptions(window).receive_buffer_bytes, 0u);
  EXPECT_EQ(DataSocketOptions(window).window_bytes, 65536u);
  record::TestSpec rr = udp;
  rr.rr.mode = record::RrMode::kRr;
  EXPECT_EQ(DataSocketOptions(rr).receive_buffer_bytes, 0u);
  EXPECT_EQ(DataSocketOptions(record::TestSpec{}).receive_buffer_bytes, 0u);
}

// The receiver's low-water mark (one wakeup per four blocks) is for a timed test's only stream.
TEST(MakeFlowConfig, LowWaterOnlyForATimedTestsOneStream) {
  record::TestSpec spec;
  const StreamRole receiver = PlanStreams(spec, false)[0];
  EXPECT_EQ(MakeFlowConfig(-1, receiver, spec, true).receive_low_water,
            4 * record::EffectiveBlockBytes(spec));
  record::TestSpec two = spec;
  two.parallel = 2;
  EXPECT_EQ(MakeFlowConfig(-1, receiver, two, true).receive_low_water, 0u);
  record::TestSpec bidir = spec;
  bidir.direction = record::Direction::kBidirectional;
  EXPECT_EQ(MakeFlowConfig(-1, receiver, bidir, true).receive_low_water, 0u);
  record::TestSpec bytes = spec;
  bytes.bytes = 1 << 20;
  EXPECT_EQ(MakeFlowConfig(-1, receiver, bytes, true).receive_low_water, 0u);
}

// A request/response flow with one transaction in flight runs in blocking calls whenever it
// has its worker to itself: -P 1, or -P up to kThreadPerFlowMax with the default threads.
TEST(MakeFlowConfig, RrFlowsBlockWhenEachHasItsOwnWorker) {
  record::TestSpec spec;
  spec.rr.mode = record::RrMode::kRr;
  spec.parallel = 2;
  const StreamRole client = PlanStreams(spec, true)[0];
  EXPECT_TRUE(EachFlowAlone(0, 2));
  EXPECT_TRUE(EachFlowAlone(0, kThreadPerFlowMax));
  EXPECT_FALSE(EachFlowAlone(1, 2)) << "--threads 1: two flows share one worker";
  EXPECT_TRUE(MakeFlowConfig(-1, client, spec, EachFlowAlone(0, 2)).rr_alone);
  EXPECT_FALSE(MakeFlowConfig(-1, client, spec, EachFlowAlone(1, 2)).rr_alone);
  record::TestSpec burst = spec;
  burst.rr.burst = 4;
  EXPECT_FALSE(MakeFlowConfig(-1, client, burst, true).rr_alone) << "several in flight: epoll";
  record::TestSpec bulk;
  EXPECT_FALSE(MakeFlowConfig(-1, client, bulk, true).rr_alone);
}

TEST(ReceiveLowWaterFor, FourBlocksUpToTheCapNeverLessThanOne) {
  EXPECT_EQ(ReceiveLowWaterFor(128 * 1024), 512u * 1024);
  EXPECT_EQ(ReceiveLowWaterFor(8 * 1024), 32u * 1024);
  EXPECT_EQ(ReceiveLowWaterFor(200 * 1024), kReceiveWakeBytes);
  EXPECT_EQ(ReceiveLowWaterFor(1 << 20), 1u << 20);
  EXPECT_EQ(ReceiveLowWaterFor(0xffffffffu), 0xffffffffu);  // no overflow
}

TEST(PlanStreams, ReverseServerSends) {
  record::TestSpec spec;
  spec.direction = record::Direction::kReverse;
  EXPECT_FALSE(PlanStreams(spec, true)[0].sender);
  EXPECT_TRUE(PlanStreams(spec, false)[0].sender);
}

}  // namespace
}  // namespace nicbench::engine
