// The server's total-rate check on a FakeClock: the rate over a whole window, a late first
// boundary, no limit.
#include "engine/conversation/total_rate_check.h"

#include <gtest/gtest.h>

namespace nicbench::engine {
namespace {

using std::chrono::milliseconds;

std::vector<FlowCounters> TotalBytes(uint64_t bytes) {
  FlowCounters c;
  c.id = 1;
  c.bytes = bytes;
  return {c};
}

TEST(TotalRateCheck, ExceededOnlyOnceAWholeWindowHasPassed) {
  FakeClock clock;
  TotalRateCheck check(8'000'000, std::chrono::seconds(2));  // 1 MB/s
  EXPECT_FALSE(check.Exceeded(clock.Now(), TotalBytes(0)));
  clock.Advance(milliseconds(1000));
  EXPECT_FALSE(check.Exceeded(clock.Now(), TotalBytes(3'000'000))) << "half a window";
  clock.Advance(milliseconds(1000));
  auto over = check.Exceeded(clock.Now(), TotalBytes(6'000'000));
  ASSERT_TRUE(over);
  EXPECT_NE(over->find("--server-bitrate-limit"), std::string::npos) << *over;
}

TEST(TotalRateCheck, AWindowNinetyPercentWholeCounts) {
  // A first wake a few ms late leaves the next boundary just short of a whole window.
  FakeClock clock;
  TotalRateCheck check(8'000'000, std::chrono::seconds(1));
  clock.Advance(milliseconds(30));
  EXPECT_FALSE(check.Exceeded(clock.Now(), TotalBytes(0)));
  clock.Advance(milliseconds(950));
  EXPECT_TRUE(check.Exceeded(clock.Now(), TotalBytes(2'000'000)));
}

TEST(TotalRateCheck, UnderTheLimitOrWithoutOneIsNeverExceeded) {
  FakeClock clock;
  TotalRateCheck limited(8'000'000, std::chrono::seconds(1));
  TotalRateCheck unlimited(0, std::chrono::seconds(1));
  for (uint64_t k = 0; k < 5; ++k) {
    EXPECT_FALSE(limited.Exceeded(clock.Now(), TotalBytes(k * 900'000)));
    EXPECT_FALSE(unlimited.Exceeded(clock.Now(), TotalBytes(k * 900'000'000)));
    clock.Advance(milliseconds(1000));
  }
}

TEST(RequestedTotalRate, EveryStreamAndBothDirections) {
  record::TestSpec spec;
  spec.rate_bits_per_second = 1000;
  spec.parallel = 3;
  spec.direction = record::Direction::kBidirectional;
  EXPECT_EQ(RequestedTotalRate(spec), 6000u);
}

}  // namespace
}  // namespace nicbench::engine
