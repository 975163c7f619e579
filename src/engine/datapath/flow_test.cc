#include "engine/datapath/flow.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>

#include <gtest/gtest.h>

#include "engine/datapath/data_path_test_util.h"
#include "net/fake_sys_calls.h"

namespace nicbench::engine {
namespace {

struct Harness {
  net::FakeSysCalls sys;
  SharedBudget budget;
  std::atomic<bool> stopping{false};
  FlowEnv env() { return FlowEnv{&sys, &budget, &stopping}; }
};

std::unique_ptr<Flow> TcpFlow(Harness& h, net::UniqueFd fd, bool sender) {
  FlowConfig c;
  c.id = 9;
  c.sender = sender;
  c.block_bytes = 1024;
  EXPECT_TRUE(net::SetNonBlocking(fd.get()));
  auto flow = MakeFlow(c, std::move(fd), h.env());
  EXPECT_TRUE(flow) << flow.error().ToString();
  return std::move(*flow);
}

TEST(FlowTest, BrokenPipeBeforeStopIsAnError) {
  Harness h;
  h.sys.FailAt(net::FakeSysCalls::Kind::kSend, 1, EPIPE);
  auto pair = testing::TcpPair();
  auto flow = TcpFlow(h, std::move(pair.a), true);
  flow->Begin(std::chrono::steady_clock::now());
  EXPECT_EQ(flow->interest(), static_cast<uint32_t>(EPOLLOUT));
  auto outcome = flow->OnEvents(EPOLLOUT);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().sys_errno, EPIPE);
  EXPECT_EQ(outcome.error().message, "stream 9: send");
}

TEST(FlowTest, BrokenPipeOrResetAfterStopIsTheNormalEnd) {
  for (int err : {EPIPE, ECONNRESET}) {
    Harness h;
    h.sys.FailAt(net::FakeSysCalls::Kind::kSend, 1, err);
    h.stopping = true;
    auto pair = testing::TcpPair();
    auto flow = TcpFlow(h, std::move(pair.a), true);
    flow->Begin(std::chrono::steady_clock::now());
    auto outcome = flow->OnEvents(EPOLLOUT);
    ASSERT_TRUE(outcome) << outcome.error().ToString();
    EXPECT_NE(*outcome, FlowState::kActive);
  }
}

TEST(FlowTest, OtherErrorsAfterStopAreStillErrors) {
  Harness h;
  h.sys.FailAt(net::FakeSysCalls::Kind::kSend, 1, EBADF);
  h.stopping = true;
  auto pair = testing::TcpPair();
  auto flow = TcpFlow(h, std::move(pair.a), true);
  flow->Begin(std::chrono::steady_clock::now());
  EXPECT_FALSE(flow->OnEvents(EPOLLOUT));
}

TEST(FlowTest, SenderWritesUntilTheSocketIsFull) {
  Harness h;
  auto pair = testing::TcpPair();
  auto flow = TcpFlow(h, std::move(pair.a), true);
  flow->Begin(std::chrono::steady_clock::now());
  // Nobody reads the other end, so the send buffer fills and the flow waits for EPOLLOUT.
  Result<FlowState> outcome = FlowState::kActive;
  for (int i = 0; i < 200; ++i) outcome = flow->OnEvents(EPOLLOUT);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(*outcome, FlowState::kActive);
  EXPECT_EQ(flow->interest(), static_cast<uint32_t>(EPOLLOUT));
  const FlowCounters c = flow->Snapshot();
  EXPECT_GT(c.bytes, 0u);
  // Whole blocks, plus possibly part of the one the full socket interrupted.
  EXPECT_GE(c.bytes, c.blocks * 1024);
  EXPECT_LT(c.bytes, (c.blocks + 1) * 1024);
}

TEST(FlowTest, ReceiverCountsThenSeesEof) {
  Harness h;
  auto pair = testing::TcpPair();
  auto flow = TcpFlow(h, std::move(pair.b), false);
  flow->Begin(std::chrono::steady_clock::now());
  EXPECT_EQ(flow->interest(), static_cast<uint32_t>(EPOLLIN));
  ASSERT_EQ(send(pair.a.get(), "0123456789", 10, 0), 10);
  pair.a.Reset();
  ASSERT_TRUE(testing::WaitReadable(flow->fd(), std::chrono::milliseconds(5000)));
  Result<FlowState> outcome = FlowState::kActive;
  for (int i = 0; i < 100 && outcome && *outcome == FlowState::kActive; ++i) {
    outcome = flow->OnEvents(EPOLLIN);
    if (*outcome == FlowState::kActive)
      testing::WaitReadable(flow->fd(), std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(outcome);
  EXPECT_EQ(*outcome, FlowState::kClosed);
  EXPECT_EQ(flow->Snapshot().bytes, 10u);
}

}  // namespace
}  // namespace nicbench::engine
