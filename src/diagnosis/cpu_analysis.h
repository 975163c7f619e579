// Internal to diagnosis: per-end CPU figures the CPU, IRQ and measurement rules share: which
// core saturates and with what kind of work, how much of the host's CPU nicbench itself used
// and how much went to other processes. Pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diagnosis/diagnose.h"
#include "diagnosis/run_view.h"

namespace nicbench::diagnosis {

struct CoreSaturation {
  int samples = 0;            // counted samples that carry per-CPU shares
  int saturated = 0;          // of those, samples where the busiest core is >= the threshold
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

  bool Saturated(const Thresholds& t) const {
    return samples > 0 && core >= 0 && saturated >= t.saturated_interval_fraction * samples;
  }
  // Of the saturated core, the share other processes plausibly took: its user+system time
  // beyond what nicbench could have used there, and no more than all the host's CPU time
  // nicbench does not account for. With nicbench pinned to the core, exactly its user+system
  // time beyond nicbench's (the host-wide cap would understate it: a process's rusage also
  // holds softirq work that /proc/stat books as softirq, not user+system).
  double CompetitorPercent() const;
  // "softirq (packet processing)", "system (kernel work in nicbench's context)", ...
  std::string DominantKind() const;
  // "cpu1 97% busy: user 10%, system 30%, irq 2%, softirq 55%"
  std::string CoreText() const;
};

// The NIC's interrupt lines of an end over its counted samples, with each CPU's busy and idle
// shares summed over the samples that carry them.
struct NicIrqs {
  int samples = 0;
  double seconds = 0;
  uint64_t total = 0;
  std::vector<uint64_t> per_cpu;
  std::map<std::string, uint64_t> per_line;  // "eth0-TxRx-0 (irq 45)" -> count
  std::vector<double> busy_sum, idle_sum;    // per CPU, summed over samples
  int cpu_samples = 0;
};

NicIrqs CollectIrqs(const RunView& view, const End& end);

CoreSaturation AnalyzeCpu(const RunView& view, const End& end, const Thresholds& t);

// Mean RunQueueWaitShare over an end's samples; nullopt when none carries it.
std::optional<double> MeanRunQueueWait(const RunView& view, const End& end);
// Mean ProcessPercent over an end's samples; nullopt when none carries it.
std::optional<double> MeanProcessPercent(const RunView& view, const End& end);

// The CPUs an end's process was allowed to run on (its last sample), empty when unknown.
std::vector<int> AllowedCpus(const RunView& view, const End& end);

}  // namespace nicbench::diagnosis
