// What moving the data cost each end (the seed-3 case: same throughput, TSO on or off, at what
// price), split into its parts: nicbench's own process time, the packet work (softirq, irq) on
// the cores that carried the flows, the NIC's interrupts, and the whole host's busy time with
// the share of it this transfer does not explain. Also the cpu-cost finding that shows them.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "diagnosis/cpu_analysis.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using record::Measured;
using record::Missing;
using record::Severity;

// A core ran the flows' packet work when it took at least this share of the softirqs.
constexpr double kFlowCoreShare = 0.05;

double EndBitsPerSecond(const RunView& view, const End& end) {
  double bits = 0;
  for (const Flow& flow : view.flows()) {
    if (flow.sender == &end || flow.receiver == &end) bits += flow.bits_per_second;
  }
  return bits;
}

// Cores that took at least kFlowCoreShare of `counts` (per CPU, summed over the test).
std::vector<int> CoresAbove(const std::vector<uint64_t>& counts) {
  const uint64_t total = std::accumulate(counts.begin(), counts.end(), uint64_t{0});
  std::vector<int> cores;
  if (total == 0) return cores;
  for (size_t c = 0; c < counts.size(); ++c) {
    if (static_cast<double>(counts[c]) >= kFlowCoreShare * static_cast<double>(total)) {
      cores.push_back(static_cast<int>(c));
    }
  }
  return cores;
}

// The cores that carried the flows: by NET_RX+NET_TX softirqs, else by the NIC's interrupts.
std::vector<int> FlowCores(const RunView& view, const End& end) {
  std::vector<uint64_t> softirqs;
  for (const auto* s : view.Samples(end)) {
    for (const auto* column : {s->net_rx_softirqs.get(), s->net_tx_softirqs.get()}) {
      if (column == nullptr) continue;
      if (softirqs.size() < column->size()) softirqs.resize(column->size());
      for (size_t c = 0; c < column->size(); ++c) softirqs[c] += (*column)[c];
    }
  }
  std::vector<int> cores = CoresAbove(softirqs);
  return cores.empty() ? CoresAbove(CollectIrqs(view, end).per_cpu) : cores;
}

// CPU-seconds over an end's counted samples.
struct Spent {
  double seconds = 0;           // wall time of the samples with CPU shares
  double host_busy = 0;         // every core's busy time
  double softirq = 0, irq = 0;  // on the flow cores
  double user = 0, system = 0;  // this end's process
  double processes = 0;         // every nicbench process on the host (both ends when shared)
  bool have_cpus = false, have_process = true;
};

double ProcessSeconds(const record::HostInterval& s) {
  const record::ProcessUsage* p = s.process.get();
  return p ? p->user_seconds + p->system_seconds : 0;
}

Spent Add(const RunView& view, const End& end, const std::vector<int>& cores) {
  Spent out;
  auto samples = view.Samples(end);
  const End* other = view.SharedHost() ? (end.local ? view.remote() : &view.local()) : nullptr;
  auto other_samples = other ? view.Samples(*other) : decltype(samples){};
  for (size_t i = 0; i < samples.size(); ++i) {
    const record::HostInterval& s = *samples[i];
    const record::ProcessUsage* p = s.process.get();
    out.have_process = out.have_process && p != nullptr;
    if (p) out.user += p->user_seconds, out.system += p->system_seconds;
    out.processes += ProcessSeconds(s);
    if (other && i < other_samples.size()) out.processes += ProcessSeconds(*other_samples[i]);
    const auto* cpus = s.cpus.get();
    if (cpus == nullptr) continue;
    out.have_cpus = true;
    const double dt = Seconds(s);
    out.seconds += dt;
    for (const record::CpuShare& c : *cpus) {
      out.host_busy += c.Busy() / 100 * dt;
      if (std::find(cores.begin(), cores.end(), c.cpu) == cores.end()) continue;
      out.softirq += c.softirq / 100 * dt;
      out.irq += c.irq / 100 * dt;
    }
  }
  return out;
}

Measured<double> PerGigabyte(bool known, double seconds, double gigabytes, const char* why) {
  if (!known) return Measured<double>::Unknown(Missing::kNotReported, why);
  return seconds / gigabytes;
}

EndCost EndCostOf(const RunView& view, const End& end) {
  EndCost cost;
  cost.end = end.name;
  const double bits = EndBitsPerSecond(view, end);
  cost.flow_cores = FlowCores(view, end);
  const Spent spent = Add(view, end, cost.flow_cores);
  if (bits <= 0 || spent.seconds <= 0) {
    auto none = Measured<double>::Unknown(Missing::kAbsent,
                                          bits <= 0 ? "no data moved" : "no CPU samples");
    cost.process_user_seconds_per_gigabyte = cost.process_system_seconds_per_gigabyte = none;
    cost.softirq_seconds_per_gigabyte = cost.irq_seconds_per_gigabyte = none;
    cost.cpu_seconds_per_gigabyte = cost.nic_interrupts_per_gbit = none;
    return cost;
  }
  const double gigabytes = bits / 8 / 1e9 * spent.seconds;
  const bool process = spent.have_process && !view.Samples(end).empty();
  cost.process_user_seconds_per_gigabyte =
      PerGigabyte(process, spent.user, gigabytes, "no process samples");
  cost.process_system_seconds_per_gigabyte =
      PerGigabyte(process, spent.system, gigabytes, "no process samples");
  const bool cores = !cost.flow_cores.empty();
  cost.softirq_seconds_per_gigabyte =
      PerGigabyte(cores, spent.softirq, gigabytes, "no softirq or NIC interrupt counts");
  cost.irq_seconds_per_gigabyte =
      PerGigabyte(cores, spent.irq, gigabytes, "no softirq or NIC interrupt counts");
  cost.cpu_seconds_per_gigabyte = spent.host_busy / gigabytes;
  if (process && spent.host_busy > 0) {
    const double explained = spent.processes + (cores ? spent.softirq + spent.irq : 0);
    cost.other_load_fraction = std::clamp(1 - explained / spent.host_busy, 0.0, 1.0);
  }
  const NicIrqs irqs = CollectIrqs(view, end);
  if (irqs.total > 0 && irqs.seconds > 0) {
    cost.nic_interrupts_per_gbit = (irqs.total / irqs.seconds) / (bits / 1e9);
  } else {
    cost.nic_interrupts_per_gbit = Measured<double>::Unknown(
        Missing::kAbsent, IsSoftwareNic(end.record->nic) ? "no NIC interrupt lines"
                                                          : "no NIC interrupts sampled");
  }
  return cost;
}

std::string Figure(const Measured<double>& m) {
  return m.known() ? fmt::format("{:.3f}", m.value()) : "unknown (" + m.detail() + ")";
}

std::string CoreList(const std::vector<int>& cores) {
  std::string out;
  for (int c : cores) out += (out.empty() ? "cpu" : ",") + std::to_string(c);
  return out.empty() ? "no core identified" : out;
}

std::string CostEvidence(const EndCost& cost) {
  std::string text = fmt::format(
      "{}: nicbench {} user + {} system CPU-s/GB; softirq {} and irq {} CPU-s/GB on {} (the "
      "cores that carried the flows); ",
      cost.end, Figure(cost.process_user_seconds_per_gigabyte),
      Figure(cost.process_system_seconds_per_gigabyte), Figure(cost.softirq_seconds_per_gigabyte),
      Figure(cost.irq_seconds_per_gigabyte), CoreList(cost.flow_cores));
  text += cost.nic_interrupts_per_gbit.known()
              ? fmt::format("{:.0f} NIC interrupts/s per Gbit/s", cost.nic_interrupts_per_gbit.value())
              : "NIC interrupts unknown (" + cost.nic_interrupts_per_gbit.detail() + ")";
  if (!cost.cpu_seconds_per_gigabyte.known()) return text;
  text += fmt::format("; whole host {:.3f} CPU-s/GB", cost.cpu_seconds_per_gigabyte.value());
  if (cost.HostFigureMeaningless()) {
    text += fmt::format(", meaningless here: {:.0f}% of the host's busy time was other load",
                        *cost.other_load_fraction * 100);
  }
  return text;
}

}  // namespace

std::vector<EndCost> Costs(const record::RunRecord& run) {
  RunView view(run);
  std::vector<EndCost> out;
  for (const End* end : view.ends()) out.push_back(EndCostOf(view, *end));
  return out;
}

Findings CostPerEnd(const RunView& view, const Thresholds&) {
  record::Finding f = MakeFinding("cpu-cost", Severity::kInfo,
                                  "What the transfer cost each end: nicbench's own CPU time, "
                                  "the packet work and the interrupts, per GB");
  bool meaningless = false;
  for (const EndCost& cost : Costs(view.run())) {
    f.evidence.push_back(CostEvidence(cost));
    meaningless = meaningless || cost.HostFigureMeaningless();
  }
  if (f.evidence.empty()) return {};
  f.meaning = "Compare these between runs (offloads on/off, MSI on/off, directions), part by "
              "part: a setting that frees nicbench's CPU, the softirq work or interrupts at the "
              "same goodput shows here first.";
  if (meaningless) {
    f.meaning += " Other processes kept the host busy, so compare the parts, not the "
                 "whole-host figure.";
  }
  f.next_step = "Repeat with one setting changed and compare the two runs.";
  return {f};
}

}  // namespace nicbench::diagnosis
