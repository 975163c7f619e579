// Figures of one end's host samples: the busiest core and the kind of work that filled it,
// interrupt rates per line and in all, softnet and counter drops, CPU-seconds by kind.
// Computed from HostInterval samples, read by the reports (text, HTML). Pure functions;
// thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "record/host_sample.h"

namespace nicbench::analysis {

// One kind of CPU work, named as top(1) does: us, ni, sy, hi (hard irq), si (softirq), st, wa.
struct KindShare {
  const char* name;
  double percent;
};

// The busy kinds of a CPU's interval (wa excluded: waiting is idle), largest first.
std::vector<KindShare> BusyKinds(const record::CpuShare& cpu);

struct CoreLoad {
  int cpu = -1;
  double busy_percent = 0;
  std::vector<KindShare> kinds;  // largest first
};

// The busiest core of one interval; nullopt when per-CPU shares are unknown or empty.
std::optional<CoreLoad> BusiestCore(const record::HostInterval& sample);

// The one rule for "the busiest core" of an end: per-core busy shares averaged over `samples`
// weighted by their length, busiest first, at most `limit`. Pass the counted samples
// (figures.h CountedSamples: past the omitted warm-up, not the short remainder), as the
// summary, the HTML report, the frequency fact and the request/response rules all do.
std::vector<CoreLoad> BusiestCores(const std::vector<const record::HostInterval*>& samples,
                                   size_t limit);

// Sum of the NIC's IRQ lines' rates in one interval; nullopt when IRQs are unknown or no line
// belongs to the NIC (loopback).
std::optional<double> NicIrqPerSecond(const record::HostInterval& sample);

// All interrupts per second in one interval (/proc/stat intr), nullopt when unknown.
std::optional<double> IrqPerSecond(const record::HostInterval& sample);

// A counter delta from /proc/net/snmp or netstat ("Tcp.RetransSegs"), nullopt when absent.
std::optional<int64_t> NetCounter(const record::HostInterval& sample, const std::string& key);

// softnet drops and time squeezes in one interval, nullopt when unknown.
struct SoftnetTotals {
  uint64_t dropped = 0, time_squeeze = 0;
};
std::optional<SoftnetTotals> Softnet(const record::HostInterval& sample);

// An IRQ line over the whole test.
struct IrqLineTotal {
  std::string irq, name, nic_queue;
  bool nic = false;
  uint64_t total = 0;
  double per_second = 0;
  int top_cpu = -1;  // the CPU that took most of them
};
std::vector<IrqLineTotal> TopIrqLines(const std::vector<record::HostInterval>& samples,
                                      size_t limit);

// CPU time spent on the host over all samples, in CPU-seconds, by kind; nullopt when no sample
// has per-CPU shares.
struct CpuSeconds {
  double total = 0;
  std::vector<KindShare> kinds;  // percent field holds CPU-seconds here, largest first
  int cpus = 0;
  double wall_seconds = 0;
};
// The one rule for the whole host's busy CPU time: every core's busy share times the sample's
// length, over `samples` (pass the counted ones, figures.h CountedSamples), by kind of work;
// cost.h's host_cpu_seconds_per_gigabyte is its total per GB. nullopt without per-CPU shares.
std::optional<CpuSeconds> HostCpuSeconds(const std::vector<const record::HostInterval*>& samples);

// Sums of the counters over the samples whose names say drops or errors, nonzero only.
std::vector<std::pair<std::string, int64_t>> DropCounters(
    const std::vector<record::HostInterval>& samples);

}  // namespace nicbench::analysis
