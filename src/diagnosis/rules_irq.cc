// Interrupt rules: one core taking the NIC's interrupts until it saturates (the seed-2 case),
// and what moving a gigabyte cost each end in CPU time and interrupts (the seed-3 case).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analysis/figures.h"
#include "diagnosis/cpu_analysis.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

struct NicIrqs {
  int samples = 0;
  double seconds = 0;
  uint64_t total = 0;
  std::vector<uint64_t> per_cpu;
  std::map<std::string, uint64_t> per_line;  // "eth0-TxRx-0 (irq 45)" -> count
  std::vector<double> busy_sum, idle_sum;    // per CPU, summed over samples
  int cpu_samples = 0;
};

NicIrqs CollectIrqs(const RunView& view, const End& end) {
  NicIrqs out;
  for (const auto* s : view.Samples(end)) {
    const auto* irqs = s->irqs.get();
    if (irqs == nullptr) continue;
    ++out.samples;
    out.seconds += Seconds(*s);
    for (const auto& line : *irqs) {
      if (!line.nic) continue;
      out.total += line.total;
      out.per_line[fmt::format("{} (irq {})", line.name, line.irq)] += line.total;
      if (out.per_cpu.size() < line.per_cpu.size()) out.per_cpu.resize(line.per_cpu.size());
      for (size_t c = 0; c < line.per_cpu.size(); ++c) out.per_cpu[c] += line.per_cpu[c];
    }
    if (const auto* cpus = s->cpus.get()) {
      ++out.cpu_samples;
      if (out.busy_sum.size() < cpus->size()) {
        out.busy_sum.resize(cpus->size());
        out.idle_sum.resize(cpus->size());
      }
      for (size_t c = 0; c < cpus->size(); ++c) {
        out.busy_sum[c] += (*cpus)[c].Busy();
        out.idle_sum[c] += (*cpus)[c].idle;
      }
    }
  }
  return out;
}

}  // namespace

Findings IrqConcentration(const RunView& view, const Thresholds& t) {
  Findings out;
  for (const End* end : view.ends()) {
    if (IsSoftwareNic(end->record->nic)) continue;
    NicIrqs irqs = CollectIrqs(view, *end);
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
        "{}: {:.0f}% of the {} interrupts of {} ({:.0f}/s) landed on cpu{}", end->name,
        share * 100, irqs.total, end->record->nic.interface, irqs.total / irqs.seconds, top));
    for (const auto& [line, count] : irqs.per_line) {
      f.evidence.push_back(fmt::format("{}: {:.0f}/s", line, count / irqs.seconds));
    }
    CoreSaturation cpu = AnalyzeCpu(view, *end, t);
    if (cpu.core == static_cast<int>(top)) f.evidence.push_back(cpu.CoreText());
    f.evidence.push_back(fmt::format("cpu{} mean busy {:.0f}%; the other CPUs {:.0f}% idle on "
                                     "average",
                                     top, top_busy, others_idle));
    f.meaning = "The NIC's interrupts and their packet processing all run on one core, which "
                "has no time left, while other cores idle: the single queue or the IRQ affinity "
                "is the limit, not the link.";
    f.next_step = "Use more queues with RSS (ethtool -l/-L), spread IRQ affinity "
                  "(/proc/irq/N/smp_affinity_list) or RPS over idle cores, raise interrupt "
                  "coalescing (ethtool -C), and check for an interrupt storm (a rate far above "
                  "the packet rate).";
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<EndCost> Costs(const record::RunRecord& run) {
  RunView view(run);
  std::vector<EndCost> out;
  for (const End* end : view.ends()) {
    const analysis::EndFigures figures = analysis::ComputeEndFigures(
        run, end->client ? analysis::Role::kClient : analysis::Role::kServer);
    EndCost cost;
    cost.end = end->name;
    cost.cpu_seconds_per_gigabyte = figures.cpu_seconds_per_gigabyte;
    // Per Gbit/s of goodput: (interrupts/s) / (Gbit/s) is interrupts per gigabit, 1/8 of those
    // per gigabyte.
    cost.nic_interrupts_per_gbit = figures.nic_interrupts_per_gigabyte;
    if (figures.nic_interrupts_per_gigabyte.known()) {
      cost.nic_interrupts_per_gbit = figures.nic_interrupts_per_gigabyte.value() / 8;
    }
    out.push_back(cost);
  }
  return out;
}

Findings CostPerEnd(const RunView& view, const Thresholds&) {
  record::Finding f = MakeFinding("cpu-cost", Severity::kInfo,
                                  "What the transfer cost each end in CPU time and interrupts");
  for (const EndCost& cost : Costs(view.run())) {
    std::string cpu = cost.cpu_seconds_per_gigabyte.known()
                          ? fmt::format("{:.2f} CPU-seconds per GB",
                                        cost.cpu_seconds_per_gigabyte.value())
                          : fmt::format("CPU per GB unknown ({})",
                                        cost.cpu_seconds_per_gigabyte.detail());
    std::string irq = cost.nic_interrupts_per_gbit.known()
                          ? fmt::format("{:.0f} NIC interrupts/s per Gbit/s",
                                        cost.nic_interrupts_per_gbit.value())
                          : fmt::format("NIC interrupts unknown ({})",
                                        cost.nic_interrupts_per_gbit.detail());
    f.evidence.push_back(fmt::format("{}: {}; {}", cost.end, cpu, irq));
  }
  if (f.evidence.empty()) return {};
  f.meaning = "Compare these between runs (offloads on/off, MSI on/off, directions): a setting "
              "that frees CPU or halves interrupts at the same goodput shows here first.";
  f.next_step = "Repeat with one setting changed and compare the two runs.";
  return {f};
}

}  // namespace nicbench::diagnosis
