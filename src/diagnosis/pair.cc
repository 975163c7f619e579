// Findings that need both directions of one path: the forward (client sends) and reverse
// (server sends) records of one job.
#include <algorithm>

#include <fmt/format.h>

#include "analysis/cost.h"
#include "base/units.h"
#include "diagnosis/rules.h"
#include "diagnosis/saturation.h"

namespace nicbench::diagnosis {
namespace {

using analysis::InterruptsPerGbit;
using record::Severity;

double Goodput(const RunView& view) {
  double bits = 0;
  for (const Flow& flow : view.flows()) bits += flow.bits_per_second;
  return bits;
}

// "client as sender: busiest core 45% busy on average" for each end of one record.
void CpuEvidence(const RunView& view, const Thresholds& t, const char* direction,
                 std::vector<std::string>& evidence) {
  for (const End* end : view.ends()) {
    CoreSaturation cpu = CoreSaturationAt(view, *end, t);
    if (cpu.samples == 0) {
      evidence.push_back(fmt::format("{}, {}: no CPU samples", direction, end->name));
    } else if (Saturated(cpu, t)) {
      evidence.push_back(fmt::format("{}, {}: saturated, {}", direction, end->name, CoreText(cpu)));
    } else {
      evidence.push_back(fmt::format("{}, {}: busiest core {:.0f}% busy on average", direction,
                                     end->name, cpu.mean_top_busy));
    }
  }
}

std::optional<record::Finding> Asymmetry(const record::RunRecord& fwd_run,
                                         const record::RunRecord& rev_run, const Thresholds& t) {
  RunView fwd(fwd_run), rev(rev_run);
  double f = Goodput(fwd), r = Goodput(rev);
  if (f <= 0 || r <= 0) return std::nullopt;
  double ratio = std::min(f, r) / std::max(f, r);
  if (ratio >= t.asymmetry_fraction) return std::nullopt;
  bool reverse_slow = r < f;
  const RunView& slow = reverse_slow ? rev : fwd;
  const char* slow_name =
      reverse_slow ? "server to client (reverse)" : "client to server (forward)";
  record::Finding finding =
      MakeFinding("asymmetric-directions", Severity::kWarning,
                  fmt::format("One direction is much slower: {} runs at {:.0f}% of the other",
                              slow_name, ratio * 100));
  finding.evidence.push_back(fmt::format("client to server: {}; server to client: {}",
                                         FormatBitRate(f), FormatBitRate(r)));
  for (const auto& other : Diagnose(slow.run(), t)) {
    if (other.severity >= Severity::kWarning) {
      finding.evidence.push_back(
          fmt::format("in the slow direction: {}: {}", other.id, other.title));
    }
  }
  CpuEvidence(fwd, t, "forward", finding.evidence);
  CpuEvidence(rev, t, "reverse", finding.evidence);
  finding.meaning = fmt::format(
      "The path carries one direction well, so the link itself is not the problem in the slow "
      "one; look at the end whose measurements differ between the directions: in the slow "
      "direction the {} receives.",
      reverse_slow ? "client" : "server");
  finding.next_step =
      "Compare the two ends' NIC facts (offloads, IRQ mode, driver) and the slow "
      "direction's receiver CPU; change one setting and repeat both directions.";
  return finding;
}

std::optional<record::Finding> InterruptRates(const record::RunRecord& fwd_run,
                                              const record::RunRecord& rev_run,
                                              const Thresholds& t) {
  std::vector<std::pair<std::string, double>> rates;
  for (const auto* run : {&fwd_run, &rev_run}) {
    const RunView view(*run);
    const std::vector<const End*> ends = view.ends();
    const std::vector<analysis::EndCost> costs = analysis::Costs(*run);
    for (size_t i = 0; i < costs.size() && i < ends.size(); ++i) {
      const record::Measured<double>& irqs = costs[i].nic_interrupts_per_gigabyte;
      if (!irqs.known() || irqs.value() <= 0) continue;
      rates.emplace_back(
          fmt::format("{}, {}", run == &fwd_run ? "forward" : "reverse", ends[i]->name),
          InterruptsPerGbit(irqs.value()));
    }
  }
  if (rates.size() < 2) return std::nullopt;
  auto [lo, hi] = std::minmax_element(
      rates.begin(), rates.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (hi->second < t.irq_rate_ratio * lo->second) return std::nullopt;
  record::Finding finding =
      MakeFinding("interrupt-rate-differs", Severity::kNotice,
                  fmt::format("Interrupts per Gbit/s differ {:.1f}x between ends or directions",
                              hi->second / lo->second));
  for (const auto& [name, rate] : rates) {
    finding.evidence.push_back(fmt::format("{}: {:.0f} NIC interrupts/s per Gbit/s", name, rate));
  }
  finding.meaning =
      "Moving the same data costs one end (or one direction) far more interrupts: "
      "offloads (TSO/GRO/LRO), interrupt coalescing or the driver differ.";
  finding.next_step =
      "Compare ethtool -k and -c between the ends; turn on TSO/GRO and adaptive "
      "coalescing where they are off.";
  return finding;
}

}  // namespace

std::vector<record::Finding> DiagnosePair(const record::RunRecord& forward,
                                          const record::RunRecord& reverse,
                                          const Thresholds& thresholds) {
  std::vector<record::Finding> out;
  if (auto f = Asymmetry(forward, reverse, thresholds)) out.push_back(std::move(*f));
  if (auto f = InterruptRates(forward, reverse, thresholds)) out.push_back(std::move(*f));
  return out;
}

}  // namespace nicbench::diagnosis
