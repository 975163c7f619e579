#include "engine/conversation/server_budget.h"

#include <gtest/gtest.h>

#include "engine/conversation/stream_plan.h"
#include "engine/datapath/flow.h"
#include "engine/datapath/flow_payload.h"

namespace nicbench::engine {
namespace {

TEST(ResourceBudget, ReservesOnlyWhatFitsAndGivesBack) {
  ResourceBudget budget;
  budget.set_limit(100);
  EXPECT_TRUE(budget.TryReserve(60));
  EXPECT_FALSE(budget.TryReserve(41));
  EXPECT_EQ(budget.in_use(), 60u);
  EXPECT_TRUE(budget.TryReserve(40));
  budget.Release(60);
  EXPECT_TRUE(budget.TryReserve(60));
  EXPECT_FALSE(budget.TryReserve(UINT64_MAX));  // no overflow past the limit
}

TEST(TestBufferBytes, SendersShareOnePayloadReceiversOneBlockPerWorker) {
  record::TestSpec spec;
  spec.parallel = 128;
  spec.block_bytes = 16u << 20;
  spec.direction = record::Direction::kReverse;  // the server sends on every stream
  EXPECT_EQ(TestBufferBytes(spec, 2), 16u << 20);
  spec.zero_copy = record::ZeroCopy::kSendfile;  // a payload and its memfd per worker
  EXPECT_EQ(TestBufferBytes(spec, 2), 2 * (32u << 20));
  spec.zero_copy = record::ZeroCopy::kMsgZerocopy;
  EXPECT_EQ(TestBufferBytes(spec, 2), 2 * (16u << 20));
  spec.zero_copy = record::ZeroCopy::kOff;
  spec.direction = record::Direction::kForward;  // the server receives on every stream
  EXPECT_EQ(TestBufferBytes(spec, 2), 2 * (16u << 20));
  spec.parallel = 1;  // one receiver uses one worker's buffer, however many workers
  EXPECT_EQ(TestBufferBytes(spec, 4), 16u << 20);
  spec.direction = record::Direction::kBidirectional;
  EXPECT_EQ(TestBufferBytes(spec, 1), 2 * (16u << 20));
  spec.transport = record::Transport::kUdp;
  spec.direction = record::Direction::kForward;
  spec.block_bytes = 1400;
  spec.parallel = 2;
  // 64 datagrams per recvmmsg; 8 receives of up to 64 KiB with UDP_GRO (and their cmsgs).
  EXPECT_EQ(TestBufferBytes(spec, 2), 2u * (64 * 1400 + 64 * 24));
  spec.udp_offload = true;
  EXPECT_EQ(TestBufferBytes(spec, 2), 2u * (8 * 65535 + 8 * 24));
  spec.direction = record::Direction::kReverse;  // two senders of 46 datagrams a batch
  EXPECT_EQ(TestBufferBytes(spec, 2), 2u * 46 * 1400);
}

TEST(TestDescriptors, StreamsPlusFixedPlusWorkers) {
  record::TestSpec spec;
  spec.parallel = 4;
  EXPECT_EQ(TestDescriptors(spec, 2), 4u + 9 + 6);
  spec.direction = record::Direction::kBidirectional;
  EXPECT_EQ(TestDescriptors(spec, 2), 8u + 9 + 6);
}

TEST(PayloadCache, OneBufferPerLengthAndFill) {
  PayloadCache cache;
  auto a = cache.Get(4096, false, false);
  auto b = cache.Get(4096, false, false);
  auto c = cache.Get(4096, true, false);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->get(), b->get());
  EXPECT_NE(a->get(), c->get());
  EXPECT_EQ((*c)->block[11], '1');
  auto with_memfd = cache.Get(4096, false, true);
  ASSERT_TRUE(with_memfd);
  EXPECT_TRUE((*with_memfd)->memfd);
}

TEST(WorkerBuffers, WorkerZeroKeepsTheTestsPayloadTheOthersCopyIt) {
  PayloadCache test;
  auto shared = test.Get(4096, false, true);
  ASSERT_TRUE(shared);
  WorkerBuffers first(0, &test), second(1, &test);
  auto a = first.ZeroCopyPayload(4096, false, true);
  auto b = second.ZeroCopyPayload(4096, false, true);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->get(), shared->get());
  EXPECT_NE(b->get(), shared->get()) << "two threads must not splice one memfd's pages";
  EXPECT_TRUE((*b)->memfd);
  EXPECT_NE((*b)->memfd.get(), (*shared)->memfd.get());
  // The receive buffer grows to the largest block asked for and is shared by the receivers.
  ASSERT_TRUE(second.ReserveReceive(1024));
  ASSERT_TRUE(second.ReserveReceive(512));
  EXPECT_EQ(second.receive_bytes(), 1024u);
  EXPECT_NE(second.receive_buffer(), nullptr);
}

TEST(WakeupBytesFor, ATurnOverManyFlowsStaysShort) {
  EXPECT_EQ(WakeupBytesFor(1), kMaxWakeupBytes);
  EXPECT_EQ(WakeupBytesFor(8), kMaxWakeupBytes);
  EXPECT_EQ(WakeupBytesFor(16), 2u << 20);
  EXPECT_EQ(WakeupBytesFor(500), (32u << 20) / 500);
  EXPECT_EQ(WakeupBytesFor(0), kMaxWakeupBytes);
}

}  // namespace
}  // namespace nicbench::engine
