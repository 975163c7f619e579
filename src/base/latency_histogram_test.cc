#include "base/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace nicbench {
namespace {

constexpr double kQuantiles[] = {0.5, 0.9, 0.99, 0.999, 1.0};

// The nearest-rank percentile of the values themselves.
double Exact(std::vector<uint64_t> values, double q) {
  std::sort(values.begin(), values.end());
  size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(q * values.size())));
  return static_cast<double>(values[rank - 1]);
}

void ExpectWithinOnePercent(const std::vector<uint64_t>& values) {
  LatencyHistogram h;
  for (uint64_t v : values) h.Record(v);
  ASSERT_EQ(h.count(), values.size());
  for (double q : kQuantiles) {
    const double exact = Exact(values, q);
    EXPECT_NEAR(h.ValueAtQuantile(q), exact, exact * 0.01) << "quantile " << q;
  }
  EXPECT_EQ(h.max_ns(), *std::max_element(values.begin(), values.end()));
  double sum = 0;
  for (uint64_t v : values) sum += static_cast<double>(v);
  EXPECT_DOUBLE_EQ(h.MeanNs(), sum / values.size());
}

TEST(LatencyHistogram, BucketsTileTheRangeWithoutGaps) {
  for (size_t b = 0; b + 1 < LatencyHistogram::kBuckets; ++b) {
    ASSERT_EQ(LatencyHistogram::BucketHigh(b) + 1, LatencyHistogram::BucketLow(b + 1)) << b;
    ASSERT_EQ(LatencyHistogram::BucketOf(LatencyHistogram::BucketLow(b)), b);
    ASSERT_EQ(LatencyHistogram::BucketOf(LatencyHistogram::BucketHigh(b)), b);
    const double low = static_cast<double>(LatencyHistogram::BucketLow(b));
    const double width = static_cast<double>(LatencyHistogram::BucketHigh(b)) - low + 1;
    if (b >= LatencyHistogram::kLinearLimit) {
      ASSERT_LE(width / low, 1.0 / 64) << b;
    }
  }
  EXPECT_EQ(LatencyHistogram::BucketOf(UINT64_MAX), LatencyHistogram::kBuckets - 1);
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  std::vector<uint64_t> values;
  for (uint64_t v = 0; v < 128; ++v) values.push_back(v);
  LatencyHistogram h;
  for (uint64_t v : values) h.Record(v);
  EXPECT_EQ(h.ValueAtQuantile(0.5), Exact(values, 0.5));
  EXPECT_EQ(h.ValueAtQuantile(0.99), Exact(values, 0.99));
}

TEST(LatencyHistogram, UniformMatchesExactPercentiles) {
  std::vector<uint64_t> values;
  for (uint64_t v = 1000; v <= 1000000; v += 7) values.push_back(v);
  ExpectWithinOnePercent(values);
}

TEST(LatencyHistogram, ExponentialMatchesExactPercentiles) {
  std::mt19937_64 rng(15);
  std::exponential_distribution<double> dist(1.0 / 30000.0);  // mean 30 us
  std::vector<uint64_t> values;
  for (int i = 0; i < 200000; ++i) values.push_back(static_cast<uint64_t>(dist(rng)) + 200);
  ExpectWithinOnePercent(values);
}

TEST(LatencyHistogram, LogNormalTailMatchesExactPercentiles) {
  std::mt19937_64 rng(99);
  std::lognormal_distribution<double> dist(std::log(20000.0), 1.5);
  std::vector<uint64_t> values;
  for (int i = 0; i < 200000; ++i) values.push_back(static_cast<uint64_t>(dist(rng)) + 1);
  ExpectWithinOnePercent(values);
}

TEST(LatencyHistogram, BimodalPicksTheRightMode) {
  // 98% at 10 us, 2% at 5 ms (a transaction that waits on a timer): p50 and p90 on the fast
  // mode, p99 and up on the slow one.
  std::vector<uint64_t> values(9800, 10000);
  values.insert(values.end(), 200, 5000000);
  ExpectWithinOnePercent(values);
  LatencyHistogram h;
  for (uint64_t v : values) h.Record(v);
  EXPECT_NEAR(h.ValueAtQuantile(0.99), 5e6, 5e4);
}

TEST(LatencyHistogram, SinceIsTheIntervalAndAddMerges) {
  LatencyHistogram first, whole, a, b;
  for (uint64_t v = 1; v <= 1000; ++v) {
    whole.Record(v * 1000);
    if (v <= 400) first.Record(v * 1000);
    (v % 2 ? a : b).Record(v * 1000);
  }
  LatencyHistogram later = whole.Since(first);
  EXPECT_EQ(later.count(), 600u);
  EXPECT_NEAR(later.ValueAtQuantile(0.5), 700000, 7000);
  EXPECT_NEAR(static_cast<double>(later.min_ns()), 401000, 4010);
  EXPECT_EQ(later.max_ns(), 1000000u);
  a.Add(b);
  EXPECT_EQ(a.count(), whole.count());
  EXPECT_EQ(a.ValueAtQuantile(0.99), whole.ValueAtQuantile(0.99));
  EXPECT_EQ(LatencyHistogram().Since(LatencyHistogram()).count(), 0u);
  EXPECT_EQ(LatencyHistogram().ValueAtQuantile(0.5), 0.0);
}

TEST(AtomicLatencyHistogram, SnapshotEqualsThePlainHistogram) {
  AtomicLatencyHistogram atomic;
  LatencyHistogram plain;
  for (uint64_t v = 50; v < 5000000; v = v * 3 / 2 + 1) {
    atomic.Record(v);
    plain.Record(v);
  }
  LatencyHistogram snap = atomic.Snapshot();
  EXPECT_EQ(snap.count(), plain.count());
  EXPECT_EQ(snap.sum_ns(), plain.sum_ns());
  EXPECT_EQ(snap.max_ns(), plain.max_ns());
  EXPECT_EQ(snap.min_ns(), plain.min_ns());
  for (double q : kQuantiles) EXPECT_EQ(snap.ValueAtQuantile(q), plain.ValueAtQuantile(q));
}

}  // namespace
}  // namespace nicbench
