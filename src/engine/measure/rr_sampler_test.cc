#include "engine/measure/rr_sampler.h"

#include <memory>

#include <gtest/gtest.h>

#include "base/latency_histogram.h"

namespace nicbench::engine {
namespace {

TEST(RrSampler, IntervalsAndTotalsFromCumulativeSnapshots) {
  auto hist = [](std::initializer_list<uint64_t> values) {
    auto h = std::make_shared<LatencyHistogram>();
    for (uint64_t v : values) h->Record(v);
    return std::shared_ptr<const LatencyHistogram>(h);
  };
  FlowCounters first, second, other;
  first.rr = second.rr = other.rr = true;
  first.id = second.id = 1;
  first.transactions = 2;
  first.latency = hist({1000, 2000});
  second.transactions = 5;
  second.latency = hist({1000, 2000, 3000, 3000, 3000});
  other.id = 3;
  other.transactions = 1;
  other.latency = hist({9000});
  RrAccumulator interval;
  interval.Add(second, first);
  interval.Add(other, FlowCounters{});
  record::RrStats s = interval.Stats(0.5);
  EXPECT_EQ(s.transactions, 4u);
  EXPECT_DOUBLE_EQ(s.seconds, 0.5);  // the raw count and its time; the rate is the record's
  EXPECT_DOUBLE_EQ(record::TransactionsPerSecond(s), 8.0);
  ASSERT_TRUE(s.latency);
  EXPECT_EQ(s.latency->count, 4u);
  EXPECT_NEAR(s.latency->p50_us, 3.0, 0.03);
  EXPECT_NEAR(s.latency->max_us, 9.0, 0.09);
  EXPECT_NEAR(s.latency->mean_us, 4.5, 1e-9);
  FlowCounters bulk;  // a bulk flow adds nothing
  RrAccumulator none;
  none.Add(bulk, bulk);
  EXPECT_FALSE(none.any());
}

}  // namespace
}  // namespace nicbench::engine
