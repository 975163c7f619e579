#include "analysis/cpu_figures.h"

#include <gtest/gtest.h>

#include "analysis/figures.h"
#include "analysis/test_runs.h"

namespace nicbench::analysis {
namespace {

using testing::MakeRun;

const SaturationLimits kLimits{90, 0.5};

// Sets CPU `cpu` of every sample of `end` (4 one-second samples, 4 CPUs at 25% system each).
void SetCpu(record::EndpointRecord& end, int cpu, double user, double system, double softirq) {
  for (record::HostInterval& s : end.samples) {
    record::CpuShare& c = s.cpus.value()[cpu];
    c.user = user, c.system = system, c.softirq = softirq;
    c.idle = 100 - user - system - softirq;
  }
}

void SetProcessSeconds(record::EndpointRecord& end, double seconds_per_sample) {
  for (record::HostInterval& s : end.samples) {
    s.process.value().user_seconds = 0;
    s.process.value().system_seconds = seconds_per_sample;
  }
}

// cpu1 saturated by softirq alone, cpu2 by a process's own time, in every sample.
record::RunRecord TwoSaturatedCores() {
  record::RunRecord run = MakeRun();
  SetCpu(run.local, 1, 0, 0, 95);
  SetCpu(run.local, 2, 50, 45, 0);
  return run;
}

TEST(CpuFigures, ProcessUseAndRunQueueWaitAreMeansOverTheCountedSamples) {
  record::RunRecord run = MakeRun();
  SetProcessSeconds(run.local, 0.3);
  run.local.samples[0].process.value().system_seconds = 0.7;  // 70, 30, 30, 30
  ASSERT_TRUE(MeanProcessPercent(run, run.local));
  EXPECT_NEAR(*MeanProcessPercent(run, run.local), 40, 1e-9);
  EXPECT_FALSE(MeanRunQueueWait(run, run.local));  // never sampled: unknown, not 0
  run.local.samples[1].run_queue = record::RunQueueDelay{0.5, 0.25, 2};
  run.local.samples[2].run_queue = record::RunQueueDelay{0.5, 0.05, 2};
  ASSERT_TRUE(MeanRunQueueWait(run, run.local));
  EXPECT_NEAR(*MeanRunQueueWait(run, run.local), 0.15, 1e-12);  // over the two that carry it
}

TEST(CpuFigures, AllowedCpusComeFromTheLastSampleThatSays) {
  record::RunRecord run = MakeRun();
  EXPECT_TRUE(AllowedCpus(run, run.local).empty());
  run.local.samples[1].process.value().allowed_cpus = {0, 1};
  run.local.samples[2].process.value().allowed_cpus = {3};
  EXPECT_EQ(AllowedCpus(run, run.local), std::vector<int>{3});
}

TEST(CpuFigures, TheSaturatedCoreIsTheOneWithMostProcessTime) {
  record::RunRecord run = TwoSaturatedCores();
  const CoreSaturation cpu = SaturatedCore(run, run.local, kLimits);
  EXPECT_EQ(cpu.samples, 4);
  EXPECT_EQ(cpu.saturated, 4);
  EXPECT_EQ(cpu.core, 2);  // not cpu1, whose softirq work is no process's
  EXPECT_DOUBLE_EQ(cpu.busy, 95);
  EXPECT_DOUBLE_EQ(cpu.user, 50);
  EXPECT_DOUBLE_EQ(cpu.system, 45);
  EXPECT_DOUBLE_EQ(cpu.softirq, 0);
  EXPECT_DOUBLE_EQ(cpu.mean_top_busy, 95);
  EXPECT_DOUBLE_EQ(cpu.start, 0);
  EXPECT_DOUBLE_EQ(cpu.end, 4);
  // nicbench used one core (1 s per 1 s sample); the host's user+system is 25+0+95+25.
  EXPECT_DOUBLE_EQ(*cpu.process_percent, 100);
  EXPECT_DOUBLE_EQ(*cpu.others_percent, 45);
  EXPECT_DOUBLE_EQ(*cpu.core_process_percent, 100);
  EXPECT_FALSE(cpu.pinned_process_percent);
  EXPECT_FALSE(cpu.run_queue_wait);
  EXPECT_DOUBLE_EQ(cpu.CompetitorPercent(), 0);  // nicbench could have filled the core itself
}

TEST(CpuFigures, ACoreSaturatedInTooFewSamplesIsNone) {
  record::RunRecord run = MakeRun();
  record::CpuShare& c = run.local.samples[0].cpus.value()[2];
  c.system = 95, c.idle = 5;
  const CoreSaturation cpu = SaturatedCore(run, run.local, kLimits);
  EXPECT_EQ(cpu.saturated, 1);
  EXPECT_EQ(cpu.core, -1);
  EXPECT_DOUBLE_EQ(cpu.busy, 0);
  // Half the samples is not most of them; three of four are.
  run.local.samples[1].cpus.value()[2] = c;
  EXPECT_EQ(SaturatedCore(run, run.local, kLimits).core, -1);
  run.local.samples[2].cpus.value()[2] = c;
  EXPECT_EQ(SaturatedCore(run, run.local, kLimits).core, 2);
}

TEST(CpuFigures, APinnedProcessLeavesTheRestOfItsCoreToCompetitors) {
  record::RunRecord run = TwoSaturatedCores();
  SetProcessSeconds(run.local, 0.3);
  for (record::HostInterval& s : run.local.samples) s.process.value().allowed_cpus = {2};
  const CoreSaturation cpu = SaturatedCore(run, run.local, kLimits);
  ASSERT_TRUE(cpu.pinned_process_percent);
  EXPECT_NEAR(*cpu.pinned_process_percent, 30, 1e-9);
  EXPECT_NEAR(cpu.CompetitorPercent(), 95 - 30, 1e-9);
  // Allowed elsewhere as well: no longer certain.
  for (record::HostInterval& s : run.local.samples) s.process.value().allowed_cpus = {1, 2};
  EXPECT_FALSE(SaturatedCore(run, run.local, kLimits).pinned_process_percent);
}

TEST(CpuFigures, OnASharedHostBothEndsProcessesAreTheHosts) {
  record::RunRecord run = TwoSaturatedCores();
  run.remote.value().host.hostname = run.local.host.hostname;
  SetProcessSeconds(run.local, 0.3);
  SetProcessSeconds(run.remote.value(), 0.6);
  const CoreSaturation cpu = SaturatedCore(run, run.local, kLimits);
  EXPECT_NEAR(*cpu.process_percent, 30, 1e-9);       // this end's own
  EXPECT_NEAR(*cpu.core_process_percent, 60, 1e-9);  // the busier of the two
  EXPECT_NEAR(*cpu.others_percent, 145 - 90, 1e-9);  // beyond both
  EXPECT_NEAR(cpu.CompetitorPercent(), 95 - 60, 1e-9);
}

TEST(CpuFigures, EachIntervalOfTheChosenCoreCarriesItsOwnFigures) {
  record::RunRecord run = TwoSaturatedCores();
  run.remote.value().host.hostname = run.local.host.hostname;
  SetProcessSeconds(run.local, 0.3);
  SetProcessSeconds(run.remote.value(), 0.6);
  run.local.samples[1].run_queue = record::RunQueueDelay{0.5, 0.25, 2};
  run.remote.value().samples[1].run_queue = record::RunQueueDelay{0.5, 0.1, 2};
  // In the last sample another process fills cpu2 and nicbench ran 10% of it.
  record::CpuShare& last = run.local.samples[3].cpus.value()[2];
  last.user = 90, last.system = 5, last.idle = 5;
  run.local.samples[3].process.value().system_seconds = 0.1;
  const CoreSaturation cpu = SaturatedCore(run, run.local, kLimits);
  ASSERT_EQ(cpu.core, 2);
  ASSERT_EQ(cpu.intervals.size(), 4u);
  const CoreInterval& first = cpu.intervals[0];
  EXPECT_TRUE(first.saturated);
  EXPECT_DOUBLE_EQ(first.user_system, 95);
  EXPECT_NEAR(*first.process, 30, 1e-9);
  EXPECT_NEAR(*first.peer_process, 60, 1e-9);
  EXPECT_FALSE(first.wait) << "not sampled in this interval";
  EXPECT_NEAR(*cpu.intervals[1].wait, 0.25, 1e-12);
  EXPECT_NEAR(*cpu.intervals[1].peer_wait, 0.1, 1e-12);
  EXPECT_NEAR(first.CompetitorPercent(), 95 - 60, 1e-9);  // as the run's mean says
  const CoreInterval& competed = cpu.intervals[3];
  EXPECT_NEAR(*competed.core_process, 60, 1e-9);
  EXPECT_NEAR(*competed.others, 145 - 70, 1e-9);
  EXPECT_NEAR(competed.CompetitorPercent(), 95 - 60, 1e-9);
  // Not saturated in an interval: that interval says so.
  last.user = 40, last.idle = 55;
  const CoreSaturation three = SaturatedCore(run, run.local, kLimits);
  ASSERT_EQ(three.core, 2);
  EXPECT_FALSE(three.intervals[3].saturated);
}

TEST(CpuFigures, NicInterruptsByLineAndCpu) {
  record::RunRecord run = MakeRun();
  run.local.samples[3].cpus =
      record::Measured<std::vector<record::CpuShare>>::Unknown(record::Missing::kAbsent);
  const NicInterrupts irqs = CountNicInterrupts(run, run.local);
  EXPECT_EQ(irqs.total, 4 * 8000u);
  EXPECT_DOUBLE_EQ(irqs.seconds, 4);
  ASSERT_EQ(irqs.per_line.size(), 1u);
  EXPECT_EQ(irqs.per_line.at("eth0-TxRx-0 (irq 45)"), 4 * 8000u);
  EXPECT_EQ(irqs.cpu_samples, 3);  // the samples that also carry per-CPU shares
  ASSERT_EQ(irqs.busy_sum.size(), 4u);
  EXPECT_DOUBLE_EQ(irqs.busy_sum[0], 3 * 25);
  EXPECT_DOUBLE_EQ(irqs.idle_sum[0], 3 * 75);
}

}  // namespace
}  // namespace nicbench::analysis
