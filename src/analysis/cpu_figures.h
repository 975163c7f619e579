// The CPU figures of one end's counted samples that the diagnosis rules judge: which core
// saturates and with what kind of work, how much of the host's CPU nicbench itself used and how
// much went to other processes, the run-queue wait of nicbench's threads and the CPUs it was
// allowed to run on. (The NIC's interrupts per CPU and per line are figures.h's
// CountNicInterrupts.) When both ends share one host (the stand), "the host's processes" are both
// ends'. Pure functions of the record; thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "record/run_record.h"

namespace nicbench::analysis {

// Percent of one core used by nicbench's process in the sample (user+system over the
// interval), unknown when not sampled.
std::optional<double> ProcessPercent(const record::HostInterval& sample);
// Seconds nicbench's threads waited on a run queue per second of the interval (summed over
// the threads: 0.5 = half a core's worth of waiting), when sampled.
std::optional<double> RunQueueWaitShare(const record::HostInterval& sample);

// ProcessPercent and RunQueueWaitShare, each a mean over the end's counted samples that carry
// it; nullopt when none does.
std::optional<double> MeanProcessPercent(const record::RunRecord& run,
                                         const record::EndpointRecord& end);
std::optional<double> MeanRunQueueWait(const record::RunRecord& run,
                                       const record::EndpointRecord& end);

// The CPUs an end's process was allowed to run on (its last counted sample that says), empty
// when unknown.
std::vector<int> AllowedCpus(const record::RunRecord& run, const record::EndpointRecord& end);

// When a core counts as saturated (the diagnosis's thresholds): at or above this busy share
// (user+nice+system+irq+softirq+steal) in more than this share of the counted samples (most of
// them: half a run is not evidence that holds across it).
struct SaturationLimits {
  double core_busy_percent = 0;
  double saturated_interval_fraction = 0;
};

// Of a core's user+nice+system time (percent), the share other processes plausibly took: what
// is beyond the nicbench process pinned to the core alone, when one is; else what is beyond the
// nicbench process taken to run there, and no more than all the host's user+system time
// nicbench does not account for (`others`). 0 when unknown.
double CompetitorShare(double user_system, std::optional<double> pinned_process,
                       std::optional<double> others, std::optional<double> core_process);

// The chosen saturated core in one counted sample, with what judging competition there needs:
// the diagnosis judges each interval, so that a few intervals cannot decide for a whole run.
struct CoreInterval {
  bool saturated = false;  // the core at or above the busy limit in this sample
  double user_system = 0;  // its user+nice+system share, percent
  double steal = 0;
  // As CoreSaturation's means below, in this sample.
  std::optional<double> others, core_process, pinned_process;
  // nicbench's CPU use (percent of a core) and run-queue wait (RunQueueWaitShare) at this end
  // and, when both ends share the host, at the other end in the same interval.
  std::optional<double> process, wait, peer_process, peer_wait;

  double CompetitorPercent() const {
    return CompetitorShare(user_system, pinned_process, others, core_process);
  }
};

// The saturated core of one end over its counted samples that carry per-CPU shares.
struct CoreSaturation {
  int samples = 0;            // counted samples that carry per-CPU shares
  int saturated = 0;          // of those, samples where the busiest core is >= the limit
  int core = -1;              // of the cores saturated often enough, the one with most user+system
  double mean_top_busy = 0;   // mean over samples of the busiest core's busy share
  double start = 0, end = 0;  // span of the counted samples, seconds
  // Mean shares (percent) of `core` over the samples where it was saturated.
  double busy = 0, user = 0, system = 0, irq = 0, softirq = 0, steal = 0;
  // Mean CPU use of nicbench at this end, percent of one core, when sampled.
  std::optional<double> process_percent;
  // Mean user+nice+system time of the host's CPUs not accounted for by nicbench (both ends'
  // processes when they share the host), percent of one core; unknown without process usage.
  std::optional<double> others_percent;
  // The nicbench process taken to run on the saturated core: this end's, or the busier of the
  // two when both ends share the host (a saturated core hosts the busiest process). Percent of
  // a core.
  std::optional<double> core_process_percent;
  // When nicbench is confined to exactly this core (taskset) and, on a shared host, the other
  // end may not run there: that process's mean use, percent of a core. The core's user+system
  // time beyond it is then certainly other processes'.
  std::optional<double> pinned_process_percent;
  // Mean run-queue wait of nicbench's threads at this end (RunQueueWaitShare), when sampled.
  std::optional<double> run_queue_wait;
  // The chosen core in each of the `samples` samples, in order; empty when no core was chosen.
  std::vector<CoreInterval> intervals;

  // Of the saturated core, the share other processes plausibly took: its user+system time
  // beyond what nicbench could have used there, and no more than all the host's CPU time
  // nicbench does not account for. With nicbench pinned to the core, exactly its user+system
  // time beyond nicbench's (the host-wide cap would understate it: a process's rusage also
  // holds softirq work that /proc/stat books as softirq, not user+system).
  double CompetitorPercent() const;
};

// Every saturated core of every sample counts, not only the busiest: when both ends share the
// host or a competitor runs, several cores are saturated at once, and the one that tells the
// story is the one where processes' own time (user+system) is largest; a core saturated by
// softirq alone comes after. `core` stays -1 when no core is saturated in more than
// `saturated_interval_fraction` of the samples.
CoreSaturation SaturatedCore(const record::RunRecord& run, const record::EndpointRecord& end,
                             const SaturationLimits& limits);

}  // namespace nicbench::analysis
