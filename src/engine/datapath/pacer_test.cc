#include "engine/datapath/pacer.h"

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

// The count a Green() loop would send, one burst per check: the reference BlocksAllowed must match.
uint64_t CountGreen(const Pacer& pacer, MonoTime now, uint64_t sent, uint32_t block,
                    uint32_t burst) {
  uint64_t blocks = 0;
  while (pacer.Green(now, sent + blocks * block)) blocks += burst;
  return blocks;
}

TEST(PacerTest, BlocksAllowedMatchesALoopOfGreenChecks) {
  Pacer pacer(8'000'000, kStart);  // 1,000,000 bytes/s
  for (uint32_t burst : {1u, 3u, 10u}) {
    for (uint64_t sent : {0ull, 1ull, 1400ull, 9'999ull, 10'000ull, 10'001ull, 7'000ull}) {
      for (int ms : {0, 1, 10, 37}) {
        const MonoTime t = kStart + milliseconds(ms);
        EXPECT_EQ(pacer.BlocksAllowed(t, sent, 1400, burst),
                  CountGreen(pacer, t, sent, 1400, burst))
            << "burst " << burst << " sent " << sent << " at " << ms << " ms";
      }
    }
  }
}

TEST(PacerTest, BlocksAllowedAtHighRatesIsTheWholeDeficit) {
  // 100 Gbit/s for 1 ms is 12.5 MB: 8,929 datagrams of 1400 bytes (the last one crosses it).
  Pacer pacer(100'000'000'000ull, kStart);
  EXPECT_EQ(pacer.BlocksAllowed(kStart + milliseconds(1), 1, 1400, 1), 8'929u);
  EXPECT_EQ(pacer.BlocksAllowed(kStart + milliseconds(1), 12'500'000, 1400, 1), 0u);
}

}  // namespace
}  // namespace nicbench::engine
