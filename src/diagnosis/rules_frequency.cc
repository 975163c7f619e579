// CPU frequency: the busiest core of an end running well below its maximum under a governor
// that lets it. Read from each end's cpufreq facts (taken when the test ended, so the frequency
// is the one the load left) and its counted samples. Silent where cpufreq is unknown (a VM's
// vCPUs have none): a VM's frequency is never guessed.
#include <fmt/format.h>

#include "analysis/frequency.h"
#include "diagnosis/rules.h"
#include "diagnosis/saturation.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

record::Finding LowFrequencyFinding(const End& end, const analysis::CoreFrequency& core,
                                    bool saturated) {
  const record::CpuFrequency& f = core.frequency;
  record::Finding f_out = MakeFinding(
      "cpu-frequency-low", saturated ? Severity::kWarning : Severity::kNotice,
      fmt::format(
          "The busiest core ran at {:.0f}% of its maximum frequency ({} governor) at the {}",
          100.0 * f.current_khz / f.max_khz, f.governor, end.name));
  f_out.evidence.push_back(fmt::format("cpu{} mean busy {:.0f}% over the counted samples", core.cpu,
                                       core.mean_busy_percent));
  f_out.evidence.push_back(
      fmt::format("cpu{} cpufreq when the test ended: {}; hardware range {:.2f}-{:.2f} GHz",
                  core.cpu, analysis::FrequencyText(f), f.min_khz / 1e6, f.max_khz / 1e6));
  f_out.meaning =
      "A core that is busy with this transfer runs slower than it can: the governor keeps the "
      "frequency low, so every packet and copy costs more time, and a CPU-bound figure is lower "
      "than the machine's. Runs compared across hosts or days differ for this reason alone.";
  f_out.next_step =
      "Set the performance governor for the test: cpupower frequency-set -g performance (or "
      "echo performance | tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor), then "
      "run again.";
  return f_out;
}

}  // namespace

Findings CpuFrequencyLow(const RunView& view, const Thresholds& t) {
  Findings out;
  for (const End* end : view.ends()) {
    const auto core = analysis::BusiestCoreFrequency(view.run(), *end->record);
    if (!core) continue;  // no cpufreq (a VM) or no per-CPU samples: nothing to judge
    const record::CpuFrequency& f = core->frequency;
    // The performance governor already asks for the most; below it is a power or thermal
    // limit that no governor setting lifts.
    if (f.governor.empty() || f.governor == "performance") continue;
    if (f.current_khz == 0 || f.max_khz == 0) continue;
    if (core->mean_busy_percent < t.frequency_busy_percent) continue;
    if (f.current_khz >= t.frequency_low_fraction * f.max_khz) continue;
    const bool saturated = Saturated(CoreSaturationAt(view, *end, t), t);
    out.push_back(LowFrequencyFinding(*end, *core, saturated));
  }
  return out;
}

}  // namespace nicbench::diagnosis
