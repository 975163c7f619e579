// The cpu-cost finding: what moving the data cost each end (the seed-3 case: same throughput,
// TSO on or off, at what price), part by part. The figures are analysis::Costs (analysis/cost.h);
// this file only words them.
#include <fmt/format.h>

#include "analysis/cost.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using analysis::InterruptsPerGbit;
using record::Measured;
using record::Severity;

std::string Figure(const Measured<double>& m) {
  return m.known() ? fmt::format("{:.3f}", m.value()) : "unknown (" + m.detail() + ")";
}

std::string CoreList(const std::vector<int>& cores) {
  std::string out;
  for (int c : cores) out += (out.empty() ? "cpu" : ",") + std::to_string(c);
  return out.empty() ? "no core identified" : out;
}

std::string CostEvidence(const std::string& end, const analysis::EndCost& cost) {
  std::string text = fmt::format(
      "{}: nicbench {} user + {} system CPU-s/GB; softirq {} and irq {} CPU-s/GB on {} (the "
      "cores that carried the flows); ",
      end, Figure(cost.process_user_seconds_per_gigabyte),
      Figure(cost.process_system_seconds_per_gigabyte), Figure(cost.softirq_seconds_per_gigabyte),
      Figure(cost.irq_seconds_per_gigabyte), CoreList(cost.flow_cores));
  text += cost.nic_interrupts_per_gigabyte.known()
              ? fmt::format("{:.0f} NIC interrupts/s per Gbit/s",
                            InterruptsPerGbit(cost.nic_interrupts_per_gigabyte.value()))
              : "NIC interrupts unknown (" + cost.nic_interrupts_per_gigabyte.detail() + ")";
  if (!cost.polluted.empty()) {
    text +=
        "; the packet work is partly other traffic's, so compare leaves it out: " + cost.polluted;
  }
  if (!cost.host_cpu_seconds_per_gigabyte.known()) return text;
  text += fmt::format("; whole host {:.3f} CPU-s/GB", cost.host_cpu_seconds_per_gigabyte.value());
  if (cost.HostFigureMeaningless()) {
    text += fmt::format(", meaningless here: {:.0f}% of the host's busy time was other load",
                        *cost.other_load_fraction * 100);
  }
  return text;
}

}  // namespace

Findings CostPerEnd(const RunView& view, const Thresholds&) {
  record::Finding f = MakeFinding("cpu-cost", Severity::kInfo,
                                  "What the transfer cost each end: nicbench's own CPU time, "
                                  "the packet work and the interrupts, per GB");
  bool meaningless = false;
  const std::vector<const End*> ends = view.ends();
  const std::vector<analysis::EndCost> costs = analysis::Costs(view.run());
  for (size_t i = 0; i < costs.size() && i < ends.size(); ++i) {
    const analysis::EndCost& cost = costs[i];
    f.evidence.push_back(CostEvidence(ends[i]->name, cost));
    meaningless = meaningless || cost.HostFigureMeaningless();
  }
  if (f.evidence.empty()) return {};
  f.meaning =
      "Compare these between runs (offloads on/off, MSI on/off, directions), part by "
      "part: a setting that frees nicbench's CPU, the softirq work or interrupts at the "
      "same goodput shows here first.";
  if (meaningless) {
    f.meaning +=
        " Other processes kept the host busy, so compare the parts, not the "
        "whole-host figure.";
  }
  f.next_step = "Repeat with one setting changed and compare the two runs.";
  return {f};
}

}  // namespace nicbench::diagnosis
