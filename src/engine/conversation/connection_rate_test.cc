#include "engine/conversation/connection_rate.h"

#include <gtest/gtest.h>

namespace nicbench::engine {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

// 128 a second: one token every 7.8125 ms, a step a double and the clock hold exactly.
constexpr double kRate = 128;
constexpr nanoseconds kOneToken{7812500};

int AdmitMany(ConnectionRate& rate, const std::string& host, int n) {
  int admitted = 0;
  for (int i = 0; i < n; ++i) admitted += rate.Admit(host) ? 1 : 0;
  return admitted;
}

TEST(ConnectionRate, AFullBucketTakesABurstThenOneConnectionPerToken) {
  FakeClock clock;
  ConnectionRate rate(clock, {kRate, 5});
  EXPECT_EQ(AdmitMany(rate, "127.0.0.1", 8), 5);
  clock.Advance(kOneToken - nanoseconds(1));
  EXPECT_FALSE(rate.Admit("127.0.0.1"));
  clock.Advance(nanoseconds(1));
  EXPECT_TRUE(rate.Admit("127.0.0.1"));
  EXPECT_FALSE(rate.Admit("127.0.0.1"));
  // Quiet long enough, the bucket is full again, never fuller.
  clock.Advance(seconds(60));
  EXPECT_EQ(AdmitMany(rate, "127.0.0.1", 8), 5);
}

TEST(ConnectionRate, AFloodGetsTheRateAndNoMore) {
  // 14 connections a token's time (1,792 a second) for 10 s against 128 a second.
  FakeClock clock;
  ConnectionRate rate(clock, {kRate, 5});
  int admitted = 0;
  for (int step = 0; step < 1280; ++step) {
    admitted += AdmitMany(rate, "127.0.0.1", 14);
    clock.Advance(kOneToken);
  }
  EXPECT_EQ(admitted, 5 + 1279);
}

TEST(ConnectionRate, OneAddressOverItsRateLeavesAnotherAlone) {
  FakeClock clock;
  ConnectionRate rate(clock, {kRate, 5});
  EXPECT_EQ(AdmitMany(rate, "127.0.0.1", 100), 5);
  EXPECT_EQ(AdmitMany(rate, "127.0.0.2", 5), 5);
  EXPECT_EQ(AdmitMany(rate, "::1", 5), 5);
}

TEST(ConnectionRate, AFloodIsSaidOnceThenCountedPerWindow) {
  FakeClock clock;
  ConnectionRate rate(clock, {kRate, 1});
  for (const char* host : {"127.0.0.1", "127.0.0.2"}) rate.Admit(host);
  EXPECT_FALSE(rate.LineDue());
  auto first = rate.NoteClosed("127.0.0.1");
  ASSERT_TRUE(first);
  EXPECT_NE(first->find("from 127.0.0.1 come faster"), std::string::npos) << *first;
  EXPECT_NE(first->find("128 a second, 1 at once"), std::string::npos) << *first;
  for (int i = 0; i < 9; ++i) {
    EXPECT_FALSE(rate.NoteClosed(i < 7 ? "127.0.0.1" : "127.0.0.2"));
  }
  EXPECT_FALSE(rate.Tick());
  ASSERT_TRUE(rate.LineDue());
  clock.Advance(ConnectionRate::kLogWindow - milliseconds(1));
  EXPECT_FALSE(rate.Tick());
  clock.Advance(milliseconds(1));
  EXPECT_EQ(*rate.LineDue(), clock.Now());
  auto count = rate.Tick();
  ASSERT_TRUE(count);
  EXPECT_NE(count->find("9 more connections"), std::string::npos) << *count;
  EXPECT_NE(count->find("from 2 addresses, most from 127.0.0.1: 7"), std::string::npos) << *count;
  EXPECT_FALSE(rate.Tick()) << "the count is said once";
  EXPECT_FALSE(rate.LineDue());
}

TEST(ConnectionRate, TheNextFloodIsSaidAtOnceAgainAfterAQuietWindow) {
  FakeClock clock;
  ConnectionRate rate(clock, {kRate, 1});
  ASSERT_TRUE(rate.NoteClosed("127.0.0.1"));
  EXPECT_FALSE(rate.NoteClosed("127.0.0.1"));
  clock.Advance(ConnectionRate::kLogWindow);
  ASSERT_TRUE(rate.Tick());  // 1 more
  EXPECT_FALSE(rate.NoteClosed("127.0.0.1")) << "the same flood goes on: counted";
  clock.Advance(ConnectionRate::kLogWindow);
  ASSERT_TRUE(rate.Tick());
  clock.Advance(ConnectionRate::kLogWindow);
  EXPECT_FALSE(rate.Tick()) << "a window with nothing closed ends the flood";
  EXPECT_TRUE(rate.NoteClosed("127.0.0.1"));
}

TEST(ConnectionRate, FlushSaysTheCountAtOnce) {
  FakeClock clock;
  ConnectionRate rate(clock, {kRate, 1});
  EXPECT_FALSE(rate.Tick(true)) << "nothing to say";
  ASSERT_TRUE(rate.NoteClosed("127.0.0.1"));
  EXPECT_FALSE(rate.Tick(true)) << "only the first was closed, and it was said";
  ASSERT_TRUE(rate.NoteClosed("127.0.0.1"));
  for (int i = 0; i < 3; ++i) rate.NoteClosed("127.0.0.1");
  clock.Advance(milliseconds(2500));
  auto line = rate.Tick(true);
  ASSERT_TRUE(line);
  EXPECT_NE(line->find("3 more connections"), std::string::npos) << *line;
  EXPECT_NE(line->find("in the last 2.5 s"), std::string::npos) << *line;
}

TEST(ConnectionRate, BusyAddressesBeyondTheTableAreLetThroughUntracked) {
  FakeClock clock;
  ConnectionRate rate(clock, {kRate, 2, 2});
  EXPECT_EQ(AdmitMany(rate, "10.0.0.1", 5), 2);
  EXPECT_EQ(AdmitMany(rate, "10.0.0.2", 5), 2);
  EXPECT_EQ(AdmitMany(rate, "10.0.0.3", 5), 5) << "the table is full of busy addresses";
  EXPECT_EQ(rate.tracked(), 2u);
  // Once an address's bucket is full again it is forgotten to make room.
  clock.Advance(seconds(1));
  EXPECT_EQ(AdmitMany(rate, "10.0.0.3", 5), 2);
  EXPECT_EQ(rate.tracked(), 1u);
}

}  // namespace
}  // namespace nicbench::engine
