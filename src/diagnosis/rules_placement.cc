// Placement rules: where the packet work and nicbench ran against where the NIC sits. A NIC is
// attached to one NUMA node; packets processed on the other node's cores cross the interconnect
// for every descriptor and buffer, and an application that runs on the one core taking all
// the NIC's interrupts competes with its own packet processing.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "analysis/figures.h"
#include "analysis/placement.h"
#include "diagnosis/rules.h"
#include "diagnosis/saturation.h"

namespace nicbench::diagnosis {
namespace {

using analysis::CpuListText;
using analysis::Placement;
using record::Severity;

std::string NodeText(const Placement& p) {
  return p.numa_node ? fmt::format("NUMA node {}", *p.numa_node) : std::string("its NUMA node");
}

// Share of the NET_RX/NET_TX softirqs that ran on CPUs outside the NIC's node, and those CPUs.
double FarSoftirqShare(const Placement& p, std::vector<int>& far_cpus) {
  uint64_t far = 0;
  for (size_t c = 0; c < p.softirqs_per_cpu.size(); ++c) {
    if (p.softirqs_per_cpu[c] == 0 || p.IsLocal(static_cast<int>(c))) continue;
    far += p.softirqs_per_cpu[c];
    if (p.softirqs_per_cpu[c] * 20 >= p.softirqs) far_cpus.push_back(static_cast<int>(c));
  }
  return p.softirqs == 0 ? 0.0 : static_cast<double>(far) / static_cast<double>(p.softirqs);
}

// Share of (sample, CPU) pairs where nicbench's threads ran outside the NIC's node.
double FarAppShare(const Placement& p, std::vector<int>& far_cpus) {
  int far = 0, all = 0;
  for (const auto& [cpu, samples] : p.ran_on) {
    all += samples;
    if (p.IsLocal(cpu)) continue;
    far += samples;
    far_cpus.push_back(cpu);
  }
  return all == 0 ? 0.0 : static_cast<double>(far) / all;
}

// The NIC's vectors whose affinity leaves out every local CPU, as `echo` commands.
std::vector<std::string> AffinityCommands(const record::NicFacts& nic, const Placement& p,
                                          const std::string& cpus) {
  std::vector<std::string> out;
  const auto* vectors = nic.irq_vectors.get();
  if (vectors == nullptr) return out;
  for (const record::IrqVector& v : *vectors) {
    const std::string& where = v.effective_affinity.empty() ? v.affinity : v.effective_affinity;
    const auto list = analysis::CpusOfList(where);
    if (!list) continue;
    if (std::any_of(list->begin(), list->end(), [&](int c) { return p.IsLocal(c); })) continue;
    out.push_back(fmt::format("echo {} > /proc/irq/{}/smp_affinity_list", cpus, v.irq));
  }
  return out;
}

std::vector<std::string> VectorEvidence(const record::NicFacts& nic) {
  std::vector<std::string> out;
  const auto* vectors = nic.irq_vectors.get();
  if (vectors == nullptr || vectors->empty()) return out;
  std::string text = "IRQ affinity:";
  for (const record::IrqVector& v : *vectors) {
    text += fmt::format(" {} (irq {}) -> {}", v.name.empty() ? "?" : v.name, v.irq,
                        v.affinity.empty() ? "?" : v.affinity);
    if (!v.effective_affinity.empty()) text += " effective " + v.effective_affinity;
    text += ";";
  }
  text.pop_back();
  out.push_back(text);
  return out;
}

record::Finding FarNodeFinding(const End& end, const Placement& p, double far_softirq,
                               const std::vector<int>& softirq_cpus, double far_app,
                               const std::vector<int>& app_cpus) {
  const record::NicFacts& nic = end.record->nic;
  const std::string local = CpuListText(p.local_cpus);
  record::Finding f =
      MakeFinding("nic-far-numa-node", Severity::kNotice,
                  fmt::format("The packet work ran on the far NUMA node from {} at the {}",
                              nic.interface, end.name));
  f.evidence.push_back(
      fmt::format("{} is on {}, local CPUs {}", nic.interface, NodeText(p), local));
  if (p.softirqs > 0) {
    f.evidence.push_back(fmt::format(
        "NET_RX/NET_TX softirqs: {:.0f}% of {} on CPUs outside the node ({})", far_softirq * 100,
        p.softirqs, softirq_cpus.empty() ? std::string("spread") : CpuListText(softirq_cpus)));
  }
  if (p.ran_on_samples > 0) {
    f.evidence.push_back(fmt::format(
        "nicbench's threads ran outside the node in {:.0f}% of their placements over {} samples "
        "(CPUs {})",
        far_app * 100, p.ran_on_samples, app_cpus.empty() ? "none" : CpuListText(app_cpus)));
  }
  for (std::string& line : VectorEvidence(nic)) f.evidence.push_back(std::move(line));
  f.meaning =
      "Every descriptor and packet buffer the NIC writes lives in its own node's memory; "
      "processing it on the other node's cores crosses the interconnect for each packet, "
      "which costs CPU time per byte and caps the rate a core can handle.";
  std::string next =
      fmt::format("Run nicbench on the NIC's node: taskset -c {} nicbench ...", local);
  const auto commands = AffinityCommands(nic, p, local);
  if (!commands.empty()) {
    next += "; steer its interrupts there (stop irqbalance first, or it moves them back): ";
    for (size_t i = 0; i < commands.size(); ++i) next += (i ? "; " : "") + commands[i];
  }
  f.next_step = next + ".";
  return f;
}

}  // namespace

Findings NumaPlacement(const RunView& view, const Thresholds& t) {
  Findings out;
  for (const End* end : view.ends()) {
    if (IsSoftwareNic(end->record->nic)) continue;
    const Placement p = analysis::PlacementOf(view.run(), *end->record);
    // One node, or the NIC's node or local CPUs unknown: nothing to judge.
    if (!p.numa_node || !p.MultiNode()) continue;
    std::vector<int> softirq_cpus, app_cpus;
    const double far_softirq = FarSoftirqShare(p, softirq_cpus);
    const double far_app = FarAppShare(p, app_cpus);
    if (far_softirq < t.far_node_fraction && far_app < t.far_node_fraction) continue;
    out.push_back(FarNodeFinding(*end, p, far_softirq, softirq_cpus, far_app, app_cpus));
  }
  return out;
}

namespace {

// The CPUs of the end's samples other than `core`, for the taskset command: the NIC's local
// ones when known (so the fix does not move nicbench off the NIC's node).
std::vector<int> OtherCpus(const Placement& p, int core) {
  std::vector<int> out;
  const int cpus = std::max(p.host_cpus, static_cast<int>(p.nic_irqs_per_cpu.size()));
  for (int c = 0; c < cpus; ++c) {
    if (c != core && (p.local_cpus.empty() || p.IsLocal(c))) out.push_back(c);
  }
  return out;
}

record::Finding SharedCoreFinding(const RunView& view, const End& end, const Placement& p, int core,
                                  double busy, const Thresholds& t) {
  const record::NicFacts& nic = end.record->nic;
  record::Finding f = MakeFinding(
      "irq-core-shared-with-app", Severity::kWarning,
      fmt::format("nicbench shares cpu{}, the core that takes the NIC's interrupts, at the {}",
                  core, end.name));
  f.evidence.push_back(fmt::format("{:.0f}% of the {} interrupts of {} landed on cpu{}",
                                   100.0 * p.nic_irqs_per_cpu[core] / p.nic_irqs, p.nic_irqs,
                                   nic.interface, core));
  f.evidence.push_back(fmt::format("nicbench's threads ran on cpu{} in {} of {} samples", core,
                                   p.ran_on.at(core), p.ran_on_samples));
  CoreSaturation cpu = CoreSaturationAt(view, end, t);
  f.evidence.push_back(cpu.core == core ? CoreText(cpu)
                                        : fmt::format("cpu{} mean busy {:.0f}%", core, busy));
  for (std::string& line : VectorEvidence(nic)) f.evidence.push_back(std::move(line));
  f.meaning =
      "The core that runs the NIC's interrupts and their packet processing also runs "
      "nicbench's copies: each steals the other's time, so the transfer is limited by one "
      "core while others could take half of the work.";
  const std::string others = CpuListText(OtherCpus(p, core));
  std::string next = fmt::format(
      "Keep nicbench off cpu{}: taskset -c {} nicbench ... (or taskset -pc {} PID for a "
      "running server)",
      core, others, others);
  const auto* vectors = nic.irq_vectors.get();
  if (vectors != nullptr && !vectors->empty()) {
    next +=
        fmt::format(", or move the interrupts instead: echo {} > /proc/irq/{}/smp_affinity_list",
                    others, vectors->front().irq);
  }
  f.next_step = next + ".";
  return f;
}

}  // namespace

Findings IrqCoreSharedWithApp(const RunView& view, const Thresholds& t) {
  Findings out;
  for (const End* end : view.ends()) {
    if (IsSoftwareNic(end->record->nic)) continue;
    const Placement p = analysis::PlacementOf(view.run(), *end->record);
    if (p.nic_irqs == 0 || p.ran_on_samples == 0 || p.nic_irqs_per_cpu.size() < 2) continue;
    const auto top = std::max_element(p.nic_irqs_per_cpu.begin(), p.nic_irqs_per_cpu.end());
    const int core = static_cast<int>(top - p.nic_irqs_per_cpu.begin());
    if (static_cast<double>(*top) < t.irq_concentration_fraction * p.nic_irqs) continue;
    const auto ran = p.ran_on.find(core);
    if (ran == p.ran_on.end() || ran->second * 2 < p.ran_on_samples) continue;
    // Sharing an idle core costs nothing: only a core that had no time left is a limit.
    const analysis::NicInterrupts irqs = analysis::CountNicInterrupts(view.run(), *end->record);
    if (irqs.cpu_samples == 0 || static_cast<size_t>(core) >= irqs.busy_sum.size()) continue;
    const double busy = irqs.busy_sum[core] / irqs.cpu_samples;
    if (busy < t.core_busy_percent) continue;
    out.push_back(SharedCoreFinding(view, *end, p, core, busy, t));
  }
  return out;
}

}  // namespace nicbench::diagnosis
