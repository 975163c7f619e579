#include "analysis/under_load.h"

#include <gtest/gtest.h>

#include "analysis/test_runs.h"

namespace nicbench::analysis {
namespace {

using record::LatencyBucket;

record::RrStats Probes(double p50_us, uint64_t count, bool connects) {
  record::RrStats s;
  s.transactions = count;
  record::LatencySummary l;
  l.count = count;
  l.min_us = l.p50_us = l.p90_us = l.p99_us = l.p999_us = l.max_us = l.mean_us = p50_us;
  std::vector<LatencyBucket> buckets{{p50_us, count}};
  if (connects) {
    s.connect = l;
    s.connect_buckets = buckets;
  }
  s.latency = l;
  s.latency_buckets = buckets;
  return s;
}

// A 100 Mbit/s upload for 10 s with the probes at `idle_ms` then `loaded_ms`, and the client's
// qdisc holding `backlog` bytes at each sample.
record::RunRecord UploadWithProbes(double idle_ms, double loaded_ms, uint64_t backlog) {
  testing::RunShape shape;
  shape.bits_per_second = 100e6;
  record::RunRecord run = testing::MakeRun(shape, 10);
  for (record::HostInterval& s : run.local.samples) {
    record::QueueSample q;
    q.qdisc = "tbf";
    q.backlog_bytes = backlog;
    q.bql_inflight_bytes =
        record::Measured<uint64_t>::Unknown(record::Missing::kNotSupported, "veth");
    s.queues = q;
  }
  record::UnderLoad u;
  u.probe_rate_per_second = 100;
  u.idle.kept = Probes(idle_ms * 1000, 150, false);
  u.idle.fresh = Probes(idle_ms * 1000, 150, true);
  u.idle.kept_rtt_us = {uint32_t(idle_ms * 1000), uint32_t(idle_ms * 1000)};
  u.loaded.kept = Probes(loaded_ms * 1000, 500, false);
  u.loaded.fresh = Probes(loaded_ms * 1000, 500, true);
  u.loaded.probe_bytes = 2000;
  u.loaded.kept_rtt_us = std::vector<uint32_t>(10, uint32_t(loaded_ms * 1000));
  run.under_load = u;
  return run;
}

TEST(TrimmedMean, LeavesOutTheTopFivePercent) {
  // 95 values at 1 ms and 5 at 100 ms: the draft's TM is the 95 alone.
  EXPECT_DOUBLE_EQ(TrimmedMeanMs({{1000, 95}, {100000, 5}}).value(), 1.0);
  // The cut falls inside a bucket: 19 of the 20 count (floor(20 * 0.95) = 19).
  EXPECT_DOUBLE_EQ(TrimmedMeanMs({{2000, 10}, {4000, 10}}).value(), (10 * 2.0 + 9 * 4.0) / 19);
  EXPECT_FALSE(TrimmedMeanMs({}).known());
}

TEST(TrimmedMean, QuantilesByNearestRank) {
  const std::vector<LatencyBucket> b{{1000, 90}, {5000, 9}, {20000, 1}};
  EXPECT_DOUBLE_EQ(QuantileMs(b, 0.5).value(), 1.0);
  EXPECT_DOUBLE_EQ(QuantileMs(b, 0.9).value(), 1.0);
  EXPECT_DOUBLE_EQ(QuantileMs(b, 0.95).value(), 5.0);
  EXPECT_DOUBLE_EQ(QuantileMs(b, 1.0).value(), 20.0);
  EXPECT_FALSE(QuantileMs({}, 0.5).known());
}

TEST(Responsiveness, TheDraftsTcpFormula) {
  EXPECT_DOUBLE_EQ(RoundTripsPerMinute(60), 1000);
  // foreign = 60000 / ((2 + 4) / 2) = 20000; loaded = 60000 / 6 = 10000; their mean.
  const Responsiveness r = ResponsivenessOf(2.0, 4.0, 6.0);
  EXPECT_DOUBLE_EQ(r.foreign_rpm.value(), 20000);
  EXPECT_DOUBLE_EQ(r.loaded_rpm.value(), 10000);
  EXPECT_DOUBLE_EQ(r.rpm.value(), 15000);
  // Without foreign probes (a stock iperf3 peer) the load's own figure stands alone.
  const Responsiveness self_only = ResponsivenessOf(
      record::Measured<double>::Unknown(record::Missing::kNotReported, "stock iperf3"),
      record::Measured<double>::Unknown(record::Missing::kNotReported, "stock iperf3"), 6.0);
  EXPECT_FALSE(self_only.foreign_rpm.known());
  EXPECT_DOUBLE_EQ(self_only.rpm.value(), 10000);
}

TEST(Responsiveness, ConfidenceAsTheDraftDefinesIt) {
  EXPECT_EQ(ConfidenceOf({1000, 1000, 1000}), Confidence::kLow);  // under MAD intervals
  EXPECT_EQ(ConfidenceOf({1000, 1000, 1000, 1000, 1000}), Confidence::kMedium);
  EXPECT_EQ(ConfidenceOf(std::vector<double>(10, 1000)), Confidence::kHigh);
  EXPECT_EQ(ConfidenceOf({100, 2000, 100, 2000, 100, 2000, 100, 8000, 100, 100}),
            Confidence::kMedium);
}

TEST(UnderLoad, AddedDelayPlacedInTheSendersQdisc) {
  // 625,000 bytes at 100 Mbit/s drain in 50 ms: all of the 50 ms the load added.
  const UnderLoadFigures f = ComputeUnderLoad(UploadWithProbes(0.3, 50.3, 625000));
  EXPECT_NEAR(f.added_ms.value(), 50.0, 1e-9);
  ASSERT_FALSE(f.queues.empty());
  EXPECT_EQ(f.queues[0].end, "client");
  EXPECT_EQ(f.queues[0].layer, "qdisc tbf");
  EXPECT_NEAR(f.queues[0].ms.value(), 50.0, 1e-6);
  EXPECT_NEAR(f.beyond_ms.value(), 0.0, 1e-6);
  EXPECT_EQ(f.confidence, Confidence::kHigh);
  EXPECT_NEAR(f.probe_share.value(), 2000.0 / 125e6, 1e-12);
  EXPECT_NEAR(f.idle.rpm.value(), 60000 / 0.3, 1e-6);
}

TEST(UnderLoad, DelayNoHostExplainsIsBeyondThem) {
  const UnderLoadFigures f = ComputeUnderLoad(UploadWithProbes(0.3, 40.3, 0));
  EXPECT_NEAR(f.queues[0].ms.value(), 0.0, 1e-9);
  EXPECT_NEAR(f.beyond_ms.value(), 40.0, 1e-6);
}

TEST(UnderLoad, UnansweredProbesAreUnknownWithTheReason) {
  record::RunRecord run = UploadWithProbes(0.3, 50.3, 0);
  const auto why = record::Measured<record::RrStats>::Unknown(record::Missing::kNotReported,
                                                              "a stock iperf3 answers no probes");
  run.under_load->idle.kept = run.under_load->idle.fresh = why;
  run.under_load->loaded.kept = run.under_load->loaded.fresh = why;
  run.under_load->idle.kept_rtt_us.clear();
  const UnderLoadFigures f = ComputeUnderLoad(run);
  EXPECT_FALSE(f.loaded_kept.p50_ms.known());
  EXPECT_EQ(f.loaded_kept.p50_ms.detail(), "a stock iperf3 answers no probes");
  EXPECT_EQ(f.unknown_why, "a stock iperf3 answers no probes");
  EXPECT_FALSE(f.added_ms.known());
  EXPECT_TRUE(f.loaded.rpm.known());  // the load's own RTT is still measured
  // ... and judged for steadiness: 10 intervals of the same RTT.
  run.under_load->loaded.kept_rtt_us.clear();
  EXPECT_EQ(ComputeUnderLoad(run).confidence, Confidence::kHigh);
}

// The kept probes of one phase with one-way delays of `up_ms` and `down_ms` and its clock.
void StampPhase(record::ProbePhase& phase, double up_ms, double down_ms,
                std::optional<record::ClockOffset> clock) {
  record::RrStats kept = Probes((up_ms + down_ms) * 1000, 100, false);
  const record::RrStats up = Probes(up_ms * 1000, 100, false);
  const record::RrStats down = Probes(down_ms * 1000, 100, false);
  kept.up = up.latency, kept.up_buckets = up.latency_buckets;
  kept.down = down.latency, kept.down_buckets = down.latency_buckets;
  phase.kept = kept;
  if (clock) {
    phase.clock = *clock;
  } else {
    phase.clock = record::Measured<record::ClockOffset>::Unknown(
        record::Missing::kNotReported, "a stock iperf3 answers no probes");
  }
}

TEST(OneWayDelay, UpAndDownSeparatelyWithTheBound) {
  record::RunRecord run = UploadWithProbes(2, 92, 0);
  const record::ClockOffset idle_clock{250.0, 40.0, 16, 4, false};
  record::ClockOffset carried = idle_clock;
  carried.carried = true;
  // A deep queue on the way up only: the requests wait 90 ms more, the responses nothing.
  StampPhase(run.under_load->idle, 1, 1, idle_clock);
  StampPhase(run.under_load->loaded, 91, 1, carried);
  OneWayFigures w = ComputeUnderLoad(run).one_way;
  EXPECT_DOUBLE_EQ(w.idle_up.p50_ms.value(), 1.0);
  EXPECT_DOUBLE_EQ(w.loaded_up.p50_ms.value(), 91.0);
  EXPECT_DOUBLE_EQ(w.loaded_down.p50_ms.value(), 1.0);
  EXPECT_DOUBLE_EQ(w.added_up_ms.value(), 90.0);
  EXPECT_DOUBLE_EQ(w.added_down_ms.value(), 0.0);
  // Both phases corrected with the idle estimate: its error cancels in the difference.
  EXPECT_DOUBLE_EQ(w.added_bound_ms.value(), 0.0);
  // Each phase with an estimate of its own: the two bounds add up.
  StampPhase(run.under_load->loaded, 91, 1, record::ClockOffset{180.0, 60.0, 16, 4, false});
  w = OneWayOf(*run.under_load);
  EXPECT_DOUBLE_EQ(w.added_bound_ms.value(), 0.1);
  EXPECT_DOUBLE_EQ(w.loaded_clock.value().offset_us, 180.0);
}

TEST(OneWayDelay, UnknownWithTheReasonWithoutTimestamps) {
  record::RunRecord run = UploadWithProbes(2, 92, 0);
  StampPhase(run.under_load->idle, 1, 1, std::nullopt);
  StampPhase(run.under_load->loaded, 91, 1, std::nullopt);
  const OneWayFigures w = ComputeUnderLoad(run).one_way;
  for (const auto* m : {&w.loaded_up.p50_ms, &w.loaded_down.p50_ms, &w.added_up_ms,
                        &w.added_down_ms, &w.added_bound_ms}) {
    EXPECT_FALSE(m->known());
    EXPECT_EQ(m->detail(), "a stock iperf3 answers no probes");
  }
  // A record from before one-way delay: its clock absent, so unknown, never 0.
  const OneWayFigures old = ComputeUnderLoad(UploadWithProbes(2, 92, 0)).one_way;
  EXPECT_FALSE(old.added_up_ms.known());
  EXPECT_FALSE(old.idle_down.p50_ms.known());
  EXPECT_EQ(old.idle_down.p50_ms.detail(), "recorded before one-way delay was measured");
}

TEST(UnderLoad, NoProbesNoFigures) {
  const UnderLoadFigures f = ComputeUnderLoad(testing::MakeRun());
  EXPECT_TRUE(f.queues.empty());
  EXPECT_EQ(f.idle_kept.count, 0u);
}

}  // namespace
}  // namespace nicbench::analysis
