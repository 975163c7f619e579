#include "protocol/udp_stats.h"

#include <cmath>

#include <gtest/gtest.h>

namespace nicbench::protocol {
namespace {

// Feeds sequence numbers with a constant transit time (no jitter).
void Feed(UdpReceiveStats& stats, std::initializer_list<uint64_t> seqs) {
  double t = 100.0;
  for (uint64_t seq : seqs) {
    stats.OnPacket(seq, t, t + 0.001);
    t += 0.01;
  }
}

TEST(UdpReceiveStatsTest, InOrderNoLoss) {
  UdpReceiveStats stats;
  Feed(stats, {1, 2, 3, 4, 5});
  EXPECT_EQ(stats.packets(), 5u);
  EXPECT_EQ(stats.lost(), 0u);
  EXPECT_EQ(stats.out_of_order(), 0u);
  EXPECT_EQ(stats.datagrams(), 5u);
  EXPECT_DOUBLE_EQ(stats.jitter_seconds(), 0.0);
}

TEST(UdpReceiveStatsTest, GapsCountAsLoss) {
  UdpReceiveStats stats;
  Feed(stats, {1, 2, 5, 6, 10});
  EXPECT_EQ(stats.packets(), 10u);
  EXPECT_EQ(stats.lost(), 5u);  // 3, 4, 7, 8, 9
  EXPECT_EQ(stats.out_of_order(), 0u);
}

TEST(UdpReceiveStatsTest, FirstPacketLost) {
  UdpReceiveStats stats;
  Feed(stats, {3, 4});
  EXPECT_EQ(stats.lost(), 2u);
  EXPECT_EQ(stats.packets(), 4u);
}

TEST(UdpReceiveStatsTest, ReorderTakesBackALoss) {
  UdpReceiveStats stats;
  Feed(stats, {1, 3, 2, 4});
  EXPECT_EQ(stats.packets(), 4u);
  EXPECT_EQ(stats.lost(), 0u);
  EXPECT_EQ(stats.out_of_order(), 1u);
}

TEST(UdpReceiveStatsTest, DuplicateCountsAsOutOfOrderAndNeverUnderflows) {
  UdpReceiveStats stats;
  Feed(stats, {1, 2, 2, 2});
  EXPECT_EQ(stats.lost(), 0u);  // no loss to take back
  EXPECT_EQ(stats.out_of_order(), 2u);
  EXPECT_EQ(stats.packets(), 2u);
  EXPECT_EQ(stats.datagrams(), 4u);
}

TEST(UdpReceiveStatsTest, DuplicateAfterLossReducesLossAsIperf3Does) {
  UdpReceiveStats stats;
  Feed(stats, {1, 4, 4});
  EXPECT_EQ(stats.lost(), 1u);  // 2 lost, then the duplicate of 4 takes one back
  EXPECT_EQ(stats.out_of_order(), 1u);
}

TEST(UdpReceiveStatsTest, JitterFollowsRfc1889) {
  UdpReceiveStats stats;
  stats.OnPacket(1, 0.0, 0.010);  // transit 10 ms: reference only
  EXPECT_DOUBLE_EQ(stats.jitter_seconds(), 0.0);
  stats.OnPacket(2, 0.1, 0.114);  // transit 14 ms: D = 4 ms
  EXPECT_NEAR(stats.jitter_seconds(), 0.004 / 16, 1e-12);
  stats.OnPacket(3, 0.2, 0.210);  // transit 10 ms: D = 4 ms
  const double j2 = 0.004 / 16;
  EXPECT_NEAR(stats.jitter_seconds(), j2 + (0.004 - j2) / 16, 1e-12);
}

TEST(UdpReceiveStatsTest, JitterConvergesToConstantDelayVariation) {
  // Transit alternates between 1 ms and 3 ms: |D| is always 2 ms, so J tends to 2 ms.
  UdpReceiveStats stats;
  for (uint64_t seq = 1; seq <= 500; ++seq) {
    const double sent = seq * 0.01;
    stats.OnPacket(seq, sent, sent + (seq % 2 ? 0.001 : 0.003));
  }
  EXPECT_NEAR(stats.jitter_seconds(), 0.002, 1e-9);
}

TEST(UdpReceiveStatsTest, ClockOffsetBetweenHostsDoesNotMatter) {
  // The sender's monotonic clock is ~1000 s ahead of ours; only changes in transit count.
  UdpReceiveStats stats;
  for (uint64_t seq = 1; seq <= 50; ++seq) stats.OnPacket(seq, 1000.0 + seq, seq + 0.5);
  EXPECT_NEAR(stats.jitter_seconds(), 0.0, 1e-9);
}

}  // namespace
}  // namespace nicbench::protocol
