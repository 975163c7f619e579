#include "engine/measure/interval_sampler.h"

#include <gtest/gtest.h>

#include <memory>

namespace nicbench::engine {
namespace {

using std::chrono::milliseconds;

TEST(IntervalSchedule, EveryIntervalWithoutOmit) {
  IntervalSchedule s(milliseconds(1000), milliseconds(0));
  EXPECT_EQ(*s.NextAfter(milliseconds(0)), milliseconds(1000));
  EXPECT_EQ(*s.NextAfter(milliseconds(999)), milliseconds(1000));
  EXPECT_EQ(*s.NextAfter(milliseconds(1000)), milliseconds(2000));
}

TEST(IntervalSchedule, OmitEndIsABoundaryAndRestartsTheGrid) {
  IntervalSchedule s(milliseconds(1000), milliseconds(1500));
  EXPECT_EQ(*s.NextAfter(milliseconds(0)), milliseconds(1000));
  EXPECT_EQ(*s.NextAfter(milliseconds(1000)), milliseconds(1500));
  EXPECT_EQ(*s.NextAfter(milliseconds(1500)), milliseconds(2500));
}

TEST(IntervalSchedule, NoIntervalMeansOnlyOmitEnd) {
  IntervalSchedule s(milliseconds(0), milliseconds(2000));
  EXPECT_EQ(*s.NextAfter(milliseconds(0)), milliseconds(2000));
  EXPECT_FALSE(s.NextAfter(milliseconds(2000)).has_value());
}

FlowCounters Counter(int id, bool sender, uint64_t bytes) {
  FlowCounters c;
  c.id = id;
  c.sender = sender;
  c.bytes = bytes;
  return c;
}

// A request/response flow whose latency histogram holds `values_ns` (cumulative).
FlowCounters RrCounter(const std::vector<uint64_t>& values_ns) {
  FlowCounters c = Counter(1, true, 0);
  c.rr = true;
  c.transactions = values_ns.size();
  auto h = std::make_shared<LatencyHistogram>();
  for (uint64_t v : values_ns) h->Record(v);
  c.latency = h;
  return c;
}

// The monitor pools its probes' live intervals: each interval's distribution, not the test's.
TEST(IntervalSampler, IntervalBucketsOnlyWhenAskedAndOnlyTheIntervals) {
  const MonoTime t0{};
  IntervalSampler plain(t0, milliseconds(0), record::Transport::kTcp);
  plain.Close(t0 + milliseconds(1000), {RrCounter({100000})}, {});
  ASSERT_TRUE(plain.intervals()[0].rr.has_value());
  EXPECT_FALSE(plain.intervals()[0].rr->latency_buckets.has_value());

  IntervalSampler sampler(t0, milliseconds(0), record::Transport::kTcp);
  sampler.SetIntervalBuckets(true);
  sampler.Close(t0 + milliseconds(1000), {RrCounter({100000, 100000})}, {});
  sampler.Close(t0 + milliseconds(2000), {RrCounter({100000, 100000, 5000000})}, {});
  ASSERT_EQ(sampler.intervals().size(), 2u);
  const auto& second = sampler.intervals()[1].rr->latency_buckets;
  ASSERT_TRUE(second.has_value());
  ASSERT_EQ(second->size(), 1u);  // the second interval's one value, 5 ms
  EXPECT_EQ((*second)[0].count, 1u);
  EXPECT_NEAR((*second)[0].us, 5000, 50);
}

TEST(IntervalSampler, DeltasPerIntervalAndTotals) {
  const MonoTime t0{};
  IntervalSampler sampler(t0, milliseconds(0), record::Transport::kTcp);
  sampler.Close(t0 + milliseconds(1000), {Counter(1, true, 100)}, {});
  sampler.Close(t0 + milliseconds(2000), {Counter(1, true, 350)}, {});
  ASSERT_EQ(sampler.intervals().size(), 2u);
  EXPECT_EQ(sampler.intervals()[0].streams[0].bytes, 100u);
  EXPECT_EQ(sampler.intervals()[1].streams[0].bytes, 250u);
  EXPECT_DOUBLE_EQ(sampler.intervals()[1].start, 1.0);
  EXPECT_DOUBLE_EQ(sampler.intervals()[1].end, 2.0);
  auto totals = sampler.Totals();
  ASSERT_EQ(totals.size(), 1u);
  EXPECT_EQ(totals[0].bytes, 350u);
  EXPECT_DOUBLE_EQ(totals[0].seconds, 2.0);
}

TEST(IntervalSampler, OmitFlagsIntervalsAndExcludesTheirBytes) {
  const MonoTime t0{};
  IntervalSampler sampler(t0, milliseconds(1000), record::Transport::kTcp);
  sampler.Close(t0 + milliseconds(1000), {Counter(1, true, 500)}, {});
  sampler.Close(t0 + milliseconds(2000), {Counter(1, true, 800)}, {});
  ASSERT_EQ(sampler.intervals().size(), 2u);
  EXPECT_TRUE(sampler.intervals()[0].omitted);
  EXPECT_FALSE(sampler.intervals()[1].omitted);
  EXPECT_DOUBLE_EQ(sampler.intervals()[1].start, 0.0);  // times restart after omit
  EXPECT_DOUBLE_EQ(sampler.intervals()[1].end, 1.0);
  EXPECT_EQ(sampler.Totals()[0].bytes, 300u);
  EXPECT_DOUBLE_EQ(sampler.MeasuredSeconds(), 1.0);
}

TEST(IntervalSampler, RetransmitsAndRttFromTcpInfo) {
  const MonoTime t0{};
  IntervalSampler sampler(t0, milliseconds(0), record::Transport::kTcp);
  record::TcpInfoSample a;
  a.total_retrans = 3;
  a.rtt_us = 100;
  a.snd_cwnd = 10;
  a.snd_mss = 1000;
  record::TcpInfoSample b = a;
  b.total_retrans = 7;
  b.rtt_us = 300;
  b.snd_cwnd = 40;
  sampler.Close(t0 + milliseconds(1000), {Counter(1, true, 1)}, {{1, a}});
  sampler.Close(t0 + milliseconds(2000), {Counter(1, true, 2)}, {{1, b}});
  EXPECT_EQ(sampler.intervals()[0].streams[0].retransmits, 3u);
  EXPECT_EQ(sampler.intervals()[1].streams[0].retransmits, 4u);
  FlowTotals t = sampler.Totals()[0];
  EXPECT_EQ(*t.retransmits, 7u);
  EXPECT_EQ(*t.max_snd_cwnd, 40000u) << "bytes, as iperf3 reports it: segments times the MSS";
  EXPECT_EQ(*t.min_rtt_us, 100u);
  EXPECT_EQ(*t.max_rtt_us, 300u);
  EXPECT_EQ(t.rtt_sum_us, 400u) << "raw counts: the mean is analysis's";
  EXPECT_EQ(t.rtt_samples, 2u);
}

TEST(IntervalSampler, UnkeptSliverStillCountsInTotals) {
  const MonoTime t0{};
  IntervalSampler sampler(t0, milliseconds(0), record::Transport::kTcp);
  sampler.Close(t0 + milliseconds(1000), {Counter(1, false, 10)}, {});
  EXPECT_EQ(sampler.Close(t0 + milliseconds(1020), {Counter(1, false, 12)}, {}, false), nullptr);
  EXPECT_EQ(sampler.intervals().size(), 1u);
  EXPECT_EQ(sampler.Totals()[0].bytes, 12u);
}

}  // namespace
}  // namespace nicbench::engine
