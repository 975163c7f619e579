// Interrupt rules: one core taking the NIC's interrupts until it saturates (the seed-2 case).
// What moving a gigabyte cost each end (the seed-3 case) is in cost.cc.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analysis/figures.h"
#include "diagnosis/rules.h"
#include "diagnosis/saturation.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

// The most streams of a flow this end takes part in; 0 when none is known.
int MostStreams(const RunView& view, const End& end) {
  int most = 0;
  for (const Flow& flow : view.flows()) {
    if (flow.sender == &end || flow.receiver == &end) most = std::max(most, flow.streams);
  }
  return most;
}

// More queues and RSS spread flows, not one flow: the NIC hashes each flow's packets to one
// queue (one interrupt line, one core), so a single-stream test's receive work stays on one
// core whatever RSS does. Only more flows (-P) show whether the host spreads them.
void ExplainOneFlow(record::Finding& f) {
  f.evidence.emplace_back(
      "1 stream: one flow is always one queue (RSS hashes all of a flow's packets to the same "
      "queue and interrupt line), so more queues cannot spread it");
  f.meaning =
      "The NIC's interrupts and the packet processing of the one flow run on one core, which has "
      "no time left, while other cores idle: one flow is always one queue, so RSS and more queues "
      "cannot help it; that core's speed is the limit for this flow, not the link.";
  f.next_step =
      "Repeat with several flows (-P 4): RSS spreads flows over queues and cores, and the sum "
      "shows what the host can do. For one flow: move its interrupt off the application's core "
      "(/proc/irq/N/smp_affinity_list), raise interrupt coalescing (ethtool -C), or enable RFS "
      "so its protocol work runs where the reading process runs.";
}

}  // namespace

Findings IrqConcentration(const RunView& view, const Thresholds& t) {
  Findings out;
  for (const End* end : view.ends()) {
    if (IsSoftwareNic(end->record->nic)) continue;
    const analysis::NicInterrupts irqs = analysis::CountNicInterrupts(view.run(), *end->record);
    if (irqs.total == 0 || irqs.per_cpu.size() < 2 || irqs.cpu_samples == 0) continue;
    size_t top = std::max_element(irqs.per_cpu.begin(), irqs.per_cpu.end()) - irqs.per_cpu.begin();
    double share = static_cast<double>(irqs.per_cpu[top]) / irqs.total;
    if (share < t.irq_concentration_fraction || top >= irqs.busy_sum.size()) continue;
    double top_busy = irqs.busy_sum[top] / irqs.cpu_samples;
    double others_idle = 0;
    for (size_t c = 0; c < irqs.idle_sum.size(); ++c) {
      if (c != top) others_idle += irqs.idle_sum[c] / irqs.cpu_samples;
    }
    others_idle /= static_cast<double>(irqs.idle_sum.size() - 1);
    if (top_busy < t.core_busy_percent || others_idle < t.others_idle_percent) continue;
    record::Finding f = MakeFinding(
        "irq-concentration", Severity::kWarning,
        fmt::format("One core takes the NIC's interrupts and saturates: cpu{} at the {}", top,
                    end->name));
    f.evidence.push_back(fmt::format(
        "{}: {:.0f}% of the {} interrupts of {} ({:.0f}/s) landed on cpu{}", end->name, share * 100,
        irqs.total, end->record->nic.interface, irqs.total / irqs.seconds, top));
    for (const auto& [line, count] : irqs.per_line) {
      f.evidence.push_back(fmt::format("{}: {:.0f}/s", line, count / irqs.seconds));
    }
    CoreSaturation cpu = CoreSaturationAt(view, *end, t);
    if (cpu.core == static_cast<int>(top)) f.evidence.push_back(CoreText(cpu));
    f.evidence.push_back(
        fmt::format("cpu{} mean busy {:.0f}%; the other CPUs {:.0f}% idle on "
                    "average",
                    top, top_busy, others_idle));
    f.meaning =
        "The NIC's interrupts and their packet processing all run on one core, which "
        "has no time left, while other cores idle: the single queue or the IRQ affinity "
        "is the limit, not the link.";
    f.next_step =
        "Use more queues with RSS (ethtool -l/-L), spread IRQ affinity "
        "(/proc/irq/N/smp_affinity_list) or RPS over idle cores, raise interrupt "
        "coalescing (ethtool -C), and check for an interrupt storm (a rate far above "
        "the packet rate).";
    if (MostStreams(view, *end) == 1) ExplainOneFlow(f);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace nicbench::diagnosis
