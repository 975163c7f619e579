// What the NIC's interrupts cost (the seed-3 case: 32,000 interrupts a second for 520 Mbit/s
// with TSO off, half that with it on) and an interrupt handler that spins (the seed-2 case: a
// core at 100% interrupt time while em0's interrupt rate stayed where it was at the start).
#include <algorithm>

#include <fmt/format.h>

#include "analysis/figures.h"
#include "analysis/host_figures.h"
#include "diagnosis/nic_view.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

// Below this rate interrupts cost too little to matter, whatever the packet rate.
constexpr double kIrqRateFloor = 10000;
// At least one interrupt per this many packets: coalescing does not batch (NAPI and the NIC's
// interrupt moderation take tens of packets per interrupt at a gigabit).
constexpr double kIrqPerPacket = 0.4;
// Livelock: the core's irq+softirq share late in the test, against what it was early.
constexpr double kQuietEarlyPercent = 50;
// ...goodput late below this share of early...
constexpr double kGoodputFall = 0.5;
// ...and the NIC's interrupt rate late within this factor of early (unchanged), or at least
// kStormFactor times it (a storm).
constexpr double kUnchangedFactor = 2.0;
constexpr double kStormFactor = 4.0;

std::string OffloadText(const record::NicFacts& nic) {
  const auto* offloads = nic.offloads.get();
  if (offloads == nullptr) return "offloads unknown (" + nic.offloads.detail() + ")";
  std::string out;
  for (const auto& o : *offloads) {
    if (o.name == "tcp-segmentation-offload" || o.name == "generic-receive-offload" ||
        o.name == "generic-segmentation-offload" || o.name == "large-receive-offload") {
      out += fmt::format("{}{} {}", out.empty() ? "" : ", ", o.name, o.on ? "on" : "off");
    }
  }
  return out.empty() ? "no segmentation offload listed" : out;
}

std::string CoalescingText(const record::NicFacts& nic) {
  const auto* c = nic.coalescing.get();
  if (c == nullptr) return "coalescing unknown (" + nic.coalescing.detail() + ")";
  return fmt::format("rx-usecs {}, rx-frames {}, adaptive-rx {}, tx-usecs {} (ethtool -c)",
                     c->rx_usecs, c->rx_frames, c->adaptive_rx ? "on" : "off", c->tx_usecs);
}

}  // namespace

Findings NicInterruptCost(const RunView& view, const Thresholds&) {
  Findings out;
  for (const End* end : view.ends()) {
    if (!HardwareNic(*end)) continue;
    const analysis::NicInterrupts irqs = analysis::CountNicInterrupts(view.run(), *end->record);
    const double bits = BitsThrough(view, *end);
    if (irqs.total == 0 || irqs.seconds <= 0 || bits <= 0) continue;
    const double per_second = irqs.total / irqs.seconds;
    bool estimated = false;
    const auto packets = PacketsPerSecond(view, *end, &estimated);
    if (!packets || *packets <= 0) continue;
    const double per_packet = per_second / *packets;
    if (per_second < kIrqRateFloor || per_packet < kIrqPerPacket) continue;
    const auto& nic = end->record->nic;
    record::Finding f = MakeFinding(
        "nic-interrupt-rate", Severity::kNotice,
        fmt::format("{:.0f} NIC interrupts a second for {:.0f} Mbit/s at the {}: one per {:.1f} "
                    "packets",
                    per_second, bits / 1e6, end->name, 1 / per_packet));
    f.evidence.push_back(fmt::format(
        "{} {}: {:.0f} interrupts/s over {:.0f} s, {:.0f} per GB moved, {:.0f} packets/s{}",
        end->name, nic.interface, per_second, irqs.seconds, per_second / (bits / 8 / 1e9), *packets,
        estimated ? " (data segments estimated from the bytes and the MTU)" : ""));
    f.evidence.push_back(fmt::format("{} {}: {}; {}", end->name, nic.interface, CoalescingText(nic),
                                     OffloadText(nic)));
    f.meaning =
        "Each interrupt carries only a packet or two: segmentation offload (TSO/GSO, GRO) is off "
        "or the NIC interrupts without waiting (coalescing 0), so the CPU pays an interrupt and a "
        "poll per packet instead of per batch. It costs CPU, not yet goodput, until a core runs "
        "out.";
    f.next_step = fmt::format(
        "Turn segmentation offload on ({}) and let the NIC batch interrupts ({} or rx-usecs 50), "
        "then compare the cpu-cost of both runs (nicbench compare).",
        Command(*end, "ethtool -K {} tso on gso on gro on"),
        Command(*end, "ethtool -C {} adaptive-rx on"));
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

struct Phase {
  double irq_softirq = 0;  // of the watched core, percent
  double nic_irq_per_second = 0;
  int samples = 0;
};

Phase PhaseOf(const std::vector<const record::HostInterval*>& samples, size_t from, size_t to,
              int cpu) {
  Phase p;
  for (size_t i = from; i < to; ++i) {
    const auto* cpus = samples[i]->cpus.get();
    auto irq = analysis::NicIrqPerSecond(*samples[i]);
    if (cpus == nullptr || static_cast<size_t>(cpu) >= cpus->size() || !irq) continue;
    p.irq_softirq += (*cpus)[cpu].irq + (*cpus)[cpu].softirq;
    p.nic_irq_per_second += *irq;
    ++p.samples;
  }
  if (p.samples > 0) {
    p.irq_softirq /= p.samples;
    p.nic_irq_per_second /= p.samples;
  }
  return p;
}

double GoodputOf(const RunView& view, size_t from, size_t to) {
  double sum = 0;
  int n = 0;
  for (const Flow& flow : view.flows()) {
    const auto& v = flow.interval_bits_per_second;
    for (size_t i = from; i < to && i < v.size(); ++i, ++n) sum += v[i];
  }
  return n > 0 ? sum / n : 0;
}

}  // namespace

Findings IrqHandlerLivelock(const RunView& view, const Thresholds& t) {
  Findings out;
  for (const End* end : view.ends()) {
    if (!HardwareNic(*end)) continue;
    const auto samples = view.Samples(*end);
    const size_t third = samples.size() / 3;
    if (third == 0 || samples[0]->cpus.get() == nullptr) continue;
    const size_t late_from = samples.size() - third;
    const double early_goodput = GoodputOf(view, 0, third);
    const double late_goodput = GoodputOf(view, late_from, samples.size());
    if (early_goodput <= 0 || late_goodput >= kGoodputFall * early_goodput) continue;
    for (int cpu = 0; cpu < static_cast<int>(samples[0]->cpus.value().size()); ++cpu) {
      const Phase early = PhaseOf(samples, 0, third, cpu);
      const Phase late = PhaseOf(samples, late_from, samples.size(), cpu);
      if (early.samples == 0 || late.samples == 0 || early.nic_irq_per_second <= 0) continue;
      if (late.irq_softirq < t.core_busy_percent || early.irq_softirq >= kQuietEarlyPercent) {
        continue;
      }
      const double ratio = late.nic_irq_per_second / early.nic_irq_per_second;
      const bool storm = ratio >= kStormFactor;
      if (!storm && ratio > kUnchangedFactor) continue;
      const std::string& iface = end->record->nic.interface;
      record::Finding f = MakeFinding(
          storm ? "irq-storm" : "irq-handler-livelock", Severity::kWarning,
          storm ? fmt::format("Interrupt storm at the {}: {}'s interrupts rose {:.0f}-fold and "
                              "cpu{} does nothing else",
                              end->name, iface, ratio, cpu)
                : fmt::format("cpu{} at the {} spins in interrupt work while {}'s interrupt rate "
                              "is unchanged",
                              cpu, end->name, iface));
      f.evidence.push_back(fmt::format(
          "{}: cpu{} irq+softirq {:.0f}% in the first {} counted intervals, {:.0f}% in the last {}",
          end->name, cpu, early.irq_softirq, third, late.irq_softirq, third));
      f.evidence.push_back(fmt::format("{} {}: {:.0f} interrupts/s early, {:.0f}/s late", end->name,
                                       iface, early.nic_irq_per_second, late.nic_irq_per_second));
      f.evidence.push_back(fmt::format("goodput {:.0f} Mbit/s early, {:.0f} Mbit/s late",
                                       early_goodput / 1e6, late_goodput / 1e6));
      f.meaning =
          storm
              ? "The NIC raises interrupts far faster than the traffic needs (a stuck cause, "
                "a shared line or a misbehaving device): the core only takes interrupts."
              : "The core is not busy because there is more traffic: the interrupt rate is what "
                "it was while goodput fell. The handler or its poll loop is spinning (a driver "
                "or firmware fault, a ring the driver keeps re-reading): load does not explain it.";
      f.next_step = fmt::format(
          "Look at the driver's counters ({}) and the kernel log (dmesg) for resets or "
          "watchdog timeouts; reload the driver or reset the link ({}) to confirm it clears; "
          "update the driver and NIC firmware.",
          Command(*end, "ethtool -S {}"),
          Command(*end, "ip link set {0} down && ip link set {0} up"));
      out.push_back(std::move(f));
      break;
    }
  }
  return out;
}

}  // namespace nicbench::diagnosis
