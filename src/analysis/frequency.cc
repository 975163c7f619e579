#include "analysis/frequency.h"

#include "analysis/host_figures.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analysis/figures.h"

namespace nicbench::analysis {

std::optional<CoreFrequency> BusiestCoreFrequency(const record::RunRecord& run,
                                                  const record::EndpointRecord& end) {
  const auto* frequencies = end.host.cpu_frequencies.get();
  if (frequencies == nullptr || frequencies->empty()) return std::nullopt;
  const std::vector<CoreLoad> top = BusiestCores(CountedSamples(run, end), 1);
  if (top.empty()) return std::nullopt;
  for (const record::CpuFrequency& f : *frequencies) {
    if (f.cpu == top[0].cpu) return CoreFrequency{f.cpu, top[0].busy_percent, f};
  }
  return std::nullopt;
}

std::string FrequencyText(const record::CpuFrequency& f) {
  std::string text = f.governor.empty() ? std::string("governor unknown") : f.governor;
  if (f.current_khz > 0) text += fmt::format(" {:.2f} GHz", f.current_khz / 1e6);
  if (f.max_khz > 0) text += fmt::format(" of {:.2f} GHz", f.max_khz / 1e6);
  if (!f.driver.empty()) text += " (" + f.driver + ")";
  return text;
}

std::string BusiestCoreFrequencyText(const record::RunRecord& run,
                                     const record::EndpointRecord& end) {
  const auto& frequencies = end.host.cpu_frequencies;
  if (!frequencies.known()) {
    std::string text = std::string("unknown (") + record::MissingName(frequencies.why());
    if (!frequencies.detail().empty()) text += ": " + frequencies.detail();
    return text + ")";
  }
  const auto core = BusiestCoreFrequency(run, end);
  if (!core) return "unknown (no per-CPU samples)";
  return fmt::format("cpu{} {}", core->cpu, FrequencyText(core->frequency));
}

}  // namespace nicbench::analysis
