// One rule per figure: the RTT diagnosis words ("mean RTT 0.25 ms"), the one the store keeps and
// compare tests, and the load's RTT of latency under load are one computation.
#include "diagnosis/run_view.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "analysis/cost.h"
#include "analysis/figure_table.h"
#include "analysis/figures.h"
#include "analysis/frequency.h"
#include "analysis/host_figures.h"
#include "analysis/test_runs.h"
#include "analysis/under_load.h"

namespace nicbench::diagnosis {
namespace {

// Four counted intervals at 100..400 us after an omitted one at 5 ms: the mean is 250 us,
// the last interval alone 400 us, and the warm-up counts for nothing.
record::RunRecord RisingRtt() {
  record::RunRecord run = analysis::testing::MakeRun({}, 5);
  auto& intervals = run.local.intervals;
  intervals[0].omitted = true;
  intervals[0].streams[0].omitted = true;
  const uint32_t rtts[] = {5000, 100, 200, 300, 400};
  for (size_t i = 0; i < intervals.size(); ++i) {
    intervals[i].streams[0].tcp_info.value().rtt_us = rtts[i];
  }
  return run;
}

TEST(OneRule, TheMeanRttsGiveOneAnswer) {
  record::RunRecord run = RisingRtt();
  run.under_load = record::UnderLoad{};  // the load's RTT of latency under load
  const double figures = analysis::ComputeFigures(run).mean_rtt_us.value();
  const double table = analysis::ComputeFigureValues(run).Get("mean_rtt_us").value();
  const double loaded = analysis::ComputeUnderLoad(run).loaded_rtt_ms.value() * 1000;
  const RunView view(run);
  ASSERT_EQ(view.flows().size(), 1u);
  ASSERT_TRUE(view.flows()[0].tcp.has_value());
  const double diagnosis = view.flows()[0].tcp->mean_rtt_us;
  EXPECT_DOUBLE_EQ(figures, 250);
  EXPECT_DOUBLE_EQ(table, figures);
  EXPECT_DOUBLE_EQ(loaded, figures);
  EXPECT_DOUBLE_EQ(diagnosis, figures);  // not the last interval's 400
}

TEST(OneRule, ASenderWithoutAnRttEstimateIsUnknownNotZero) {
  record::RunRecord run = RisingRtt();
  for (auto& iv : run.local.intervals) iv.streams[0].tcp_info.value().rtt_us = 0;
  EXPECT_FALSE(analysis::SenderMeanRttUs(run.local.intervals).known());
  EXPECT_FALSE(analysis::ComputeFigures(run).mean_rtt_us.known());
}

// A warm-up (omitted) second with CPU 0 flat out, then CPU 2 the busiest: every "busiest core"
// (the summary's, the HTML report's, the frequency fact's, the request/response rules') is CPU 2.
TEST(OneRule, TheBusiestCoreLeavesOutTheWarmUp) {
  record::RunRecord run = analysis::testing::MakeRun({}, 5);
  run.spec.omit = std::chrono::seconds(1);
  run.spec.interval = std::chrono::seconds(1);
  auto& samples = run.local.samples;
  samples[0].cpus.value()[0].system = 100, samples[0].cpus.value()[0].idle = 0;
  for (size_t i = 1; i < samples.size(); ++i) {
    samples[i].cpus.value()[2].system = 60, samples[i].cpus.value()[2].idle = 40;
  }
  const auto cores = analysis::BusiestCores(analysis::CountedSamples(run, run.local), 1);
  ASSERT_EQ(cores.size(), 1u);
  EXPECT_EQ(cores[0].cpu, 2);
  EXPECT_DOUBLE_EQ(cores[0].busy_percent, 60);
  std::vector<record::CpuFrequency> frequencies(4);
  for (int c = 0; c < 4; ++c) frequencies[c].cpu = c;
  run.local.host.cpu_frequencies = frequencies;
  const auto frequency = analysis::BusiestCoreFrequency(run, run.local);
  ASSERT_TRUE(frequency.has_value());
  EXPECT_EQ(frequency->cpu, 2);
  EXPECT_DOUBLE_EQ(frequency->mean_busy_percent, 60);
}

// The whole host's busy time: the cost per GB and the summary's split by kind count the same
// samples (a warm-up with every core flat out counts in neither).
TEST(OneRule, TheHostBusyTimeIsOneFigure) {
  record::RunRecord run = analysis::testing::MakeRun({}, 5);
  run.spec.omit = std::chrono::seconds(1);
  run.spec.interval = std::chrono::seconds(1);
  for (record::CpuShare& c : run.local.samples[0].cpus.value()) c.system = 100, c.idle = 0;
  const auto host = analysis::HostCpuSeconds(analysis::CountedSamples(run, run.local));
  ASSERT_TRUE(host.has_value());
  EXPECT_DOUBLE_EQ(host->total, 4.0);  // 4 counted seconds, one core's worth busy
  const analysis::EndCost cost = analysis::CostOf(run, analysis::Role::kClient);
  EXPECT_NEAR(cost.host_cpu_seconds_per_gigabyte.value(), 1.0, 1e-9);  // 4 CPU-s over 4 GB
}

// The per-interval goodput the diagnosis judges and the host samples count the same stretches of
// the test: past the warm-up, and not a remainder under a quarter of the interval.
TEST(OneRule, IntervalsAndSamplesCountTheSameStretches) {
  record::RunRecord run = analysis::testing::MakeRun({}, 0);
  run.spec.omit = std::chrono::seconds(1);
  run.spec.interval = std::chrono::seconds(1);
  const double bounds[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 3.2}};
  for (const auto& b : bounds) {
    record::IntervalRecord iv;
    iv.start = b[0], iv.end = b[1], iv.omitted = b[1] <= 1;
    record::StreamInterval st;
    st.id = 1, st.sender = true, st.start = b[0], st.end = b[1];
    st.bytes = static_cast<uint64_t>(125e6 * (b[1] - b[0]));  // 1 Gbit/s
    iv.streams.push_back(st);
    run.intervals.push_back(iv);
    record::HostInterval sample;
    sample.start = b[0], sample.end = b[1];
    run.local.samples.push_back(sample);
  }
  const std::vector<double> rates = analysis::IntervalBitsPerSecond(run, true);
  EXPECT_EQ(rates, (std::vector<double>{1e9, 1e9}));
  EXPECT_EQ(analysis::CountedSamples(run, run.local).size(), rates.size());
  const RunView view(run);
  ASSERT_FALSE(view.flows().empty());
  EXPECT_EQ(view.flows()[0].interval_bits_per_second, rates);
}

}  // namespace
}  // namespace nicbench::diagnosis
