#include "engine/flow_budget.h"

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

}  // namespace
}  // namespace nicbench::engine
