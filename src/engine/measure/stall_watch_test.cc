#include "engine/measure/stall_watch.h"

#include <gtest/gtest.h>

namespace nicbench::engine {
namespace {

TEST(StallWatch, StalledOnlyAfterTheLimitWithoutMovement) {
  const MonoTime start{};
  StallWatch watch(start, std::chrono::milliseconds(1000));
  std::vector<FlowCounters> counters(1);
  EXPECT_FALSE(watch.Stalled(start + std::chrono::milliseconds(999), counters));
  counters[0].bytes = 10;
  EXPECT_FALSE(watch.Stalled(start + std::chrono::milliseconds(1500), counters));
  EXPECT_EQ(watch.deadline(), start + std::chrono::milliseconds(2500));
  EXPECT_TRUE(watch.Stalled(start + std::chrono::milliseconds(2500), counters));
  StallWatch never(start, std::chrono::milliseconds(0));
  EXPECT_FALSE(never.Stalled(start + std::chrono::hours(48), {}));
  EXPECT_EQ(never.deadline(), MonoTime::max());
}

}  // namespace
}  // namespace nicbench::engine
