#include "engine/pacer.h"

#include <gtest/gtest.h>

namespace nicbench::engine {
namespace {

using std::chrono::milliseconds;

const MonoTime kStart = MonoTime(std::chrono::seconds(1000));

TEST(PacerTest, FirstBlockIsAlwaysGreen) {
  Pacer pacer(1'000'000, kStart);
  EXPECT_TRUE(pacer.Green(kStart, 0));
  EXPECT_FALSE(pacer.Green(kStart, 1));  // no time has passed: any byte is over the rate
}

TEST(PacerTest, GreenExactlyWhileBelowTheAverageRate) {
  // 8 Mbit/s is 1,000,000 bytes/s: after 10 ms the allowance is 10,000 bytes.
  Pacer pacer(8'000'000, kStart);
  const MonoTime t = kStart + milliseconds(10);
  EXPECT_TRUE(pacer.Green(t, 9'999));
  EXPECT_FALSE(pacer.Green(t, 10'000));  // equal to the target is not below it
  EXPECT_FALSE(pacer.Green(t, 10'001));
}

TEST(PacerTest, CatchesUpAfterAStall) {
  // Average since start, as iperf3: a sender that sent nothing for a second may send a
  // second's worth at once.
  Pacer pacer(80'000'000, kStart);  // 10 MB/s
  const MonoTime later = kStart + std::chrono::seconds(1);
  EXPECT_TRUE(pacer.Green(later, 9'999'999));
  EXPECT_FALSE(pacer.Green(later, 10'000'000));
}

TEST(PacerTest, NoOverflowAtHighRatesAndLongRuns) {
  const uint64_t rate = 400'000'000'000ull;  // 400 Gbit/s
  Pacer pacer(rate, kStart);
  const MonoTime day = kStart + std::chrono::hours(24);
  const uint64_t day_bytes = rate / 8 * 86'400;  // 4.32e15 bytes
  EXPECT_TRUE(pacer.Green(day, day_bytes - 1));
  EXPECT_FALSE(pacer.Green(day, day_bytes));
}

}  // namespace
}  // namespace nicbench::engine
