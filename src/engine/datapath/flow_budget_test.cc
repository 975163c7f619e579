#include "engine/datapath/flow_budget.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace nicbench::engine {
namespace {

TEST(SharedBudgetTest, UnlimitedGrantsWholeBlocks) {
  SharedBudget budget;
  EXPECT_TRUE(budget.unlimited());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(budget.Reserve(1000, true), 1000u);
}

TEST(SharedBudgetTest, ExactByteBudgetCutsTheLastBlock) {
  SharedBudget budget(SendBudget{.bytes = 2500, .blocks = 0});
  EXPECT_EQ(budget.Reserve(1000, true), 1000u);
  EXPECT_EQ(budget.Reserve(1000, true), 1000u);
  EXPECT_EQ(budget.Reserve(1000, true), 500u);
  EXPECT_EQ(budget.Reserve(1000, true), 0u);
}

TEST(SharedBudgetTest, WholeDatagramsOvershootToTheNextBlock) {
  SharedBudget budget(SendBudget{.bytes = 2500, .blocks = 0});
  EXPECT_EQ(budget.Reserve(1000, false), 1000u);
  EXPECT_EQ(budget.Reserve(1000, false), 1000u);
  EXPECT_EQ(budget.Reserve(1000, false), 1000u);
  EXPECT_EQ(budget.Reserve(1000, false), 0u);
}

TEST(SharedBudgetTest, BlockBudget) {
  SharedBudget budget(SendBudget{.bytes = 0, .blocks = 3});
  EXPECT_FALSE(budget.unlimited());
  EXPECT_EQ(budget.Reserve(10, true), 10u);
  EXPECT_EQ(budget.Reserve(10, true), 10u);
  EXPECT_EQ(budget.Reserve(10, true), 10u);
  EXPECT_EQ(budget.Reserve(10, true), 0u);
}

TEST(SharedBudgetTest, ConcurrentReservationsSumExactly) {
  const uint64_t total = 10'000'037;
  SharedBudget budget(SendBudget{.bytes = total, .blocks = 0});
  std::atomic<uint64_t> granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      uint64_t mine = 0;
      while (uint32_t n = budget.Reserve(4096, true)) mine += n;
      granted += mine;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(granted.load(), total);
}

// The eventfd's counter: how many times the receive side signalled (0 when it has not).
uint64_t Signalled(int fd) {
  uint64_t count = 0;
  return ::read(fd, &count, sizeof(count)) == sizeof(count) ? count : 0;
}

TEST(SharedBudgetTest, ReceiversSignalOnceWhenTheyMeetTheBlocks) {
  const int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  ASSERT_GE(fd, 0);
  SharedBudget budget;
  budget.SetReceiveLimits(SendBudget{.bytes = 0, .blocks = 10}, fd);
  EXPECT_TRUE(budget.receive_tracked());
  budget.AddReceived(7000, 7);
  EXPECT_EQ(Signalled(fd), 0u);
  budget.AddReceived(3000, 3);  // the tenth block
  budget.AddReceived(5000, 5);  // after the end: no second signal
  EXPECT_EQ(Signalled(fd), 1u);
  ::close(fd);
}

TEST(SharedBudgetTest, ReceiversOnSeveralThreadsSignalOnceOnTheBytes) {
  const int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  ASSERT_GE(fd, 0);
  SharedBudget budget;
  budget.SetReceiveLimits(SendBudget{.bytes = 1'000'000, .blocks = 0}, fd);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&budget] {
      for (int i = 0; i < 1000; ++i) budget.AddReceived(1000, 1);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(Signalled(fd), 1u);
  ::close(fd);
}

TEST(SharedBudgetTest, NoReceiveLimitsIsNotTracked) {
  SharedBudget budget(SendBudget{.bytes = 100, .blocks = 0});
  EXPECT_FALSE(budget.receive_tracked());
}

}  // namespace
}  // namespace nicbench::engine
