// The frequency of an end's busiest core: which core worked hardest over the counted samples,
// and its cpufreq facts (governor, current and maximum frequency, read when the test ended).
// Read by the CPU-frequency finding and by compare's what-differs table. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "record/run_record.h"

namespace nicbench::analysis {

// The busiest core of an end over its counted samples (highest mean busy share) and its
// cpufreq facts, when the end has both.
struct CoreFrequency {
  int cpu = -1;
  double mean_busy_percent = 0;
  record::CpuFrequency frequency;
};
std::optional<CoreFrequency> BusiestCoreFrequency(const record::RunRecord& run,
                                                  const record::EndpointRecord& end);
// "powersave 1.20 GHz of 3.30 GHz (intel_pstate)".
std::string FrequencyText(const record::CpuFrequency& f);

// The what-differs value of an end's CPU frequency: "cpu3 powersave 1.20 GHz of 3.30 GHz
// (intel_pstate)" for its busiest core, "unknown (not supported: no cpufreq ...)" on a VM,
// "unknown (no per-CPU samples)" when there is no busiest core to name. The store keeps it with
// the run's facts (its samples are not kept there), and compare reads it back.
std::string BusiestCoreFrequencyText(const record::RunRecord& run,
                                     const record::EndpointRecord& end);

}  // namespace nicbench::analysis
