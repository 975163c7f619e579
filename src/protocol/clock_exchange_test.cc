#include "protocol/clock_exchange.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <thread>

#include <gtest/gtest.h>

namespace nicbench::protocol {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kMs = 1000000;  // ns

// One exchange on a path of `up` and `down` ns, with the server's clock `offset` ns ahead of
// the client's and `serve` ns between its receive and its send; the client sends at `t1`.
ClockSample OverPath(int64_t t1, int64_t up, int64_t down, int64_t offset, int64_t serve = 0) {
  ClockSample s;
  s.t1 = t1;
  s.t2 = t1 + up + offset;
  s.t3 = s.t2 + serve;
  s.t4 = s.t3 - offset + down;
  return s;
}

// An epoch-sized base, so the arithmetic is checked where a double would lose nanoseconds.
constexpr int64_t kBase = int64_t{1764930000} * 1000000000;

TEST(ClockOffset, SymmetricPathGivesTheOffsetExactly) {
  std::vector<ClockSample> samples;
  for (int i = 0; i < 8; ++i)
    samples.push_back(OverPath(kBase + i * kMs, 2 * kMs, 2 * kMs, 5 * kMs, 100000));
  auto c = EstimateClockOffset(samples);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_DOUBLE_EQ(c->offset_us, 5000.0);
  EXPECT_DOUBLE_EQ(c->bound_us, 2000.0);  // half the round trip, the server's time left out
  EXPECT_EQ(c->exchanges, 8u);
  EXPECT_EQ(c->kept, kClockExchangesKept);
}

TEST(ClockOffset, AsymmetricPathStaysWithinItsBoundOfTheTruth) {
  // Up 10 ms, down 2 ms, the server's clock 3 ms behind: the estimate leans by half the
  // difference (4 ms), and the bound (6 ms) still holds the true offset.
  const int64_t truth = -3 * kMs;
  auto c = EstimateClockOffset({OverPath(kBase, 10 * kMs, 2 * kMs, truth)});
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->offset_us, 1000.0);
  EXPECT_DOUBLE_EQ(c->bound_us, 6000.0);
  EXPECT_LE(std::abs(c->offset_us - truth / 1000.0), c->bound_us);
}

TEST(ClockOffset, KeepsTheExchangesWithTheSmallestRoundTrip) {
  // Fifteen exchanges behind a queue on the way up (40 ms) and one that found it empty: the
  // estimate comes from the quick ones, so its bound is the quick one's.
  const int64_t truth = 7 * kMs;
  std::vector<ClockSample> samples;
  for (int i = 0; i < 15; ++i) samples.push_back(OverPath(kBase + i * kMs, 40 * kMs, kMs, truth));
  samples.push_back(OverPath(kBase + 20 * kMs, kMs, kMs, truth));
  auto c = EstimateClockOffset(samples, 1);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->bound_us, 1000.0);
  EXPECT_DOUBLE_EQ(c->offset_us, 7000.0);
  EXPECT_EQ(c->kept, 1u);
  // With four kept, the three slow ones' intervals still hold the truth and cannot widen it.
  auto four = EstimateClockOffset(samples);
  ASSERT_TRUE(four);
  EXPECT_LE(four->bound_us, 1000.0);
  EXPECT_LE(std::abs(four->offset_us - truth / 1000.0), four->bound_us);
}

TEST(ClockOffset, IntersectingTheKeptIntervalsNarrowsTheBound) {
  // One exchange slower up, one slower down: each alone is 2 ms wide either side, together
  // they pin the offset to +-1 ms, centred on the truth.
  const int64_t truth = 2 * kMs;
  auto c = EstimateClockOffset(
      {OverPath(kBase, kMs, 3 * kMs, truth), OverPath(kBase + kMs, 3 * kMs, kMs, truth)});
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->offset_us, 2000.0);
  EXPECT_DOUBLE_EQ(c->bound_us, 1000.0);
}

TEST(ClockOffset, ClockStepsAreLeftOut) {
  // A step back during an exchange gives a negative round trip: not usable.
  ClockSample stepped = OverPath(kBase, kMs, kMs, 0);
  stepped.t4 = stepped.t1 - kMs;
  EXPECT_FALSE(EstimateClockOffset({stepped}));
  EXPECT_FALSE(EstimateClockOffset({}));
  auto c = EstimateClockOffset({stepped, OverPath(kBase, kMs, kMs, 0)});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->exchanges, 2u);
  EXPECT_EQ(c->kept, 1u);
  // Two exchanges whose intervals do not meet (the server's clock stepped 50 ms between them):
  // the single best one's estimate, not an empty intersection.
  auto split = EstimateClockOffset(
      {OverPath(kBase, kMs, kMs, 0), OverPath(kBase + kMs, 2 * kMs, 2 * kMs, 50 * kMs)});
  ASSERT_TRUE(split);
  EXPECT_DOUBLE_EQ(split->offset_us, 0.0);
  EXPECT_DOUBLE_EQ(split->bound_us, 1000.0);
  EXPECT_EQ(split->kept, 1u);
}

TEST(ClockOffset, StampsRoundTripBigEndian) {
  uint8_t buf[kStampBytes];
  PutStamps(buf, kBase + 123, -42);
  EXPECT_EQ(buf[0], static_cast<uint8_t>(static_cast<uint64_t>(kBase + 123) >> 56));
  int64_t t2 = 0, t3 = 0;
  GetStamps(buf, &t2, &t3);
  EXPECT_EQ(t2, kBase + 123);
  EXPECT_EQ(t3, -42);
}

TEST(ClockOffset, ExchangesOverASocketAgreeWithTheSameClock) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  std::thread server([&] { EXPECT_TRUE(ServeClockExchanges(fds[1], kClockExchanges, 10s)); });
  auto samples = RunClockExchanges(fds[0], kClockExchanges, 10s);
  server.join();
  ASSERT_TRUE(samples) << samples.error().message;
  ASSERT_EQ(samples->size(), kClockExchanges);
  auto c = EstimateClockOffset(*samples);
  ASSERT_TRUE(c);
  // Both ends read one clock: the offset is 0 within the bound.
  EXPECT_LE(std::abs(c->offset_us), c->bound_us + 0.001);
  // A server that goes away mid-exchange: an error, not a hang.
  close(fds[1]);
  EXPECT_FALSE(RunClockExchanges(fds[0], 1, 10s));
  close(fds[0]);
}

}  // namespace
}  // namespace nicbench::protocol
