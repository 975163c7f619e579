// The host's and the link's conditions (docs/monitor.md, "Events").
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "analysis/host_figures.h"
#include "job/monitor_rules.h"

namespace nicbench::job {
namespace {

using record::EventKind;

constexpr size_t kCalmSamples = 10;  // the rates "before" are their means

double Mean(const std::deque<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double Median(std::deque<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void Push(std::deque<double>& values, double value) {
  values.push_back(value);
  if (values.size() > kCalmSamples) values.pop_front();
}

// Packets `cpu`'s softnet processed a second in the sample (its backlog and the NAPI polls it
// ran: the NET_RX softirq's work in packets); nullopt when softnet_stat is unknown.
std::optional<double> PacketsPerSecond(const record::HostInterval& sample, int cpu) {
  const double seconds = sample.end - sample.start;
  const auto* softnet = sample.softnet.get();
  if (softnet == nullptr || !(seconds > 0)) return std::nullopt;
  for (const record::SoftnetDelta& s : *softnet) {
    if (s.cpu == cpu) return static_cast<double>(s.processed) / seconds;
  }
  return std::nullopt;
}

// Packets `cpu`'s softnet backlog refused in the sample (0 when unknown).
uint64_t BacklogDrops(const record::HostInterval& sample, int cpu) {
  if (const auto* softnet = sample.softnet.get()) {
    for (const record::SoftnetDelta& s : *softnet) {
      if (s.cpu == cpu) return s.dropped;
    }
  }
  return 0;
}

uint64_t CountOn(const record::Measured<std::vector<uint64_t>>& per_cpu, int cpu) {
  const auto* counts = per_cpu.get();
  if (counts == nullptr || cpu < 0 || static_cast<size_t>(cpu) >= counts->size()) return 0;
  return (*counts)[static_cast<size_t>(cpu)];
}

// The softirq that saturates `cpu`: of the two /proc/softirqs counts the sample keeps, the
// network softirq that ran more often there ("softirq" when neither ran).
std::string SoftirqName(const record::HostInterval& sample, int cpu) {
  const uint64_t rx = CountOn(sample.net_rx_softirqs, cpu);
  const uint64_t tx = CountOn(sample.net_tx_softirqs, cpu);
  if (rx == 0 && tx == 0) return "softirq";
  return rx >= tx ? "NET_RX softirq" : "NET_TX softirq";
}

// The rate a saturation is judged with: the NIC's own lines when they are known (a NIC's
// handler that spins is the seed-2 case), else every interrupt of the host.
std::optional<double> InterruptRate(const record::HostInterval& sample) {
  if (auto nic = analysis::NicIrqPerSecond(sample)) return nic;
  return analysis::IrqPerSecond(sample);
}

std::string LinesOnCpu(const record::HostInterval& sample, int cpu) {
  std::string text;
  if (!sample.irqs.known()) return text;
  int shown = 0;
  for (const record::IrqRate& line : sample.irqs.value()) {
    if (cpu < 0 || static_cast<size_t>(cpu) >= line.per_cpu.size() || line.per_cpu[cpu] == 0)
      continue;
    const double seconds = sample.end - sample.start;
    const double rate = seconds > 0 ? static_cast<double>(line.per_cpu[cpu]) / seconds : 0;
    text += fmt::format("{}{} {:.0f}/s", shown++ ? ", " : "", line.name, rate);
    if (shown == 3) break;
  }
  return text;
}

// What the interrupt rate says about a saturated core: unchanged is the seed-2 signature.
std::string RateVerdict(std::optional<double> before, std::optional<double> now, double factor,
                        bool& livelock) {
  livelock = false;
  if (!now) return "the interrupt rate is unknown";
  if (!before) return fmt::format("interrupts {:.0f}/s; the rate before is unknown", *now);
  if (*now >= *before * factor) {
    return fmt::format(
        "interrupts rose from {:.0f}/s to {:.0f}/s: the interrupt load explains the busy core",
        *before, *now);
  }
  livelock = true;
  return fmt::format(
      "interrupts per second unchanged ({:.0f}/s now, {:.0f}/s before): a livelocked interrupt "
      "handler or poll loop, not load",
      *now, *before);
}

// What the packet rate says about a core saturated by softirq: risen is a flood of packets;
// unchanged is softirq work the packets do not explain (a poll loop that spins, or packets that
// each cost more).
std::string PacketVerdict(int cpu, std::optional<double> before, std::optional<double> now,
                          double factor, bool& unexplained) {
  unexplained = false;
  if (!now) return fmt::format("the packets processed on cpu{} are unknown", cpu);
  if (!before) {
    return fmt::format("cpu{} processed {:.0f} packets/s; the rate before is unknown", cpu, *now);
  }
  if (*now >= *before * factor) {
    return fmt::format(
        "packets processed on cpu{} rose from {:.0f}/s to {:.0f}/s: a flood of packets explains "
        "the busy core",
        cpu, *before, *now);
  }
  unexplained = true;
  return fmt::format(
      "packets processed on cpu{} unchanged ({:.0f}/s now, {:.0f}/s before): softirq work the "
      "packets do not explain (a poll loop that spins, or packets that each cost more)",
      cpu, *now, *before);
}

}  // namespace

std::vector<Condition> HostWatch::Judge(const record::HostInterval& sample) {
  std::vector<Condition> out;
  ++samples_;
  const double seconds = sample.end - sample.start;
  bool any_hot = false;
  if (const auto* cpus = sample.cpus.get()) {
    for (const record::CpuShare& c : *cpus) {
      const double share = c.irq + c.softirq;
      // A core also counts when it is busy and its softirq loses packets: beside other work
      // the kernel leaves NET_RX to ksoftirqd, a thread that gets only its fair share of the
      // core, so a storm there shows as backlog drops, not as a core full of softirq.
      const bool starved =
          c.Busy() >= t_.saturated_percent && c.softirq > 0 && BacklogDrops(sample, c.cpu) > 0;
      if (share < t_.saturated_percent && !starved) {
        saturated_seconds_.erase(c.cpu);
        continue;
      }
      any_hot = true;
      saturated_seconds_[c.cpu] += seconds;
    }
    Remember(sample, any_hot);
    for (const record::CpuShare& c : *cpus) {
      if (saturated_seconds_.count(c.cpu) == 0) continue;
      if (auto cond = Saturated(sample, c.cpu, c.irq + c.softirq, saturated_seconds_[c.cpu]))
        out.push_back(std::move(*cond));
    }
  }
  Counters(sample, out);
  for (Condition& c : out) {
    c.subject = prefix_ + c.subject;
    c.summary = prefix_ + c.summary;
  }
  return out;
}

void HostWatch::Remember(const record::HostInterval& sample, bool any_hot) {
  if (any_hot) {
    // The first saturated sample after a calm one fixes "before"; with no calm sample yet it
    // stays unknown.
    if (before_frozen_) return;
    if (!calm_irq_rates_.empty()) irq_rate_before_ = Mean(calm_irq_rates_);
    // The median, not the mean: a flood's first second, before its core counts as saturated,
    // is among the calm samples and would raise a mean to the flood's own rate.
    for (const auto& [cpu, rates] : calm_packet_rates_) {
      if (!rates.empty()) packet_rate_before_[cpu] = Median(rates);
    }
    before_frozen_ = irq_rate_before_.has_value() || !packet_rate_before_.empty();
    return;
  }
  before_frozen_ = false;
  irq_rate_before_.reset();
  packet_rate_before_.clear();
  if (auto rate = InterruptRate(sample)) Push(calm_irq_rates_, *rate);
  const double seconds = sample.end - sample.start;
  if (const auto* softnet = sample.softnet.get(); softnet != nullptr && seconds > 0) {
    for (const record::SoftnetDelta& s : *softnet) {
      Push(calm_packet_rates_[s.cpu], static_cast<double>(s.processed) / seconds);
    }
  }
}

std::optional<Condition> HostWatch::Saturated(const record::HostInterval& sample, int cpu,
                                              double share, double seconds) {
  const double needed = std::chrono::duration<double>(t_.saturated_for).count();
  if (seconds + 1e-9 < needed) return std::nullopt;
  const record::CpuShare& c = sample.cpus.value()[static_cast<size_t>(cpu)];
  const bool hard = c.irq >= c.softirq;
  bool unexplained = false;
  std::string verdict;
  if (hard) {
    verdict = RateVerdict(irq_rate_before_, InterruptRate(sample), t_.irq_rise_factor, unexplained);
  } else {
    const auto before = packet_rate_before_.find(cpu);
    verdict = PacketVerdict(
        cpu, before == packet_rate_before_.end() ? std::nullopt : std::optional(before->second),
        PacketsPerSecond(sample, cpu), t_.irq_rise_factor, unexplained);
  }
  const char* why = !unexplained ? ""
                    : hard       ? ": livelocked interrupt handler or poll loop"
                                 : ": not explained by the packet rate";
  Condition cond;
  cond.kind = EventKind::kCoreSaturated;
  cond.subject = fmt::format("cpu{}", cpu);
  cond.held_seconds = seconds;
  const std::string what = hard ? "hard irq" : SoftirqName(sample, cpu);
  const double length = sample.end - sample.start;
  const uint64_t drops = BacklogDrops(sample, cpu);
  cond.summary = share >= t_.saturated_percent
                     ? fmt::format("cpu{} saturated by {} ({:.0f}%) for {:.0f} s{}", cpu, what,
                                   share, seconds, why)
                     : fmt::format(
                           "cpu{} saturated (busy {:.0f}%) with its {} ({:.0f}%) dropping packets "
                           "for {:.0f} s{}",
                           cpu, c.Busy(), what, share, seconds, why);
  cond.evidence.push_back(fmt::format("cpu{}: hard irq {:.1f}%, softirq {:.1f}%, idle {:.1f}%", cpu,
                                      c.irq, c.softirq, c.idle));
  if (share < t_.saturated_percent) {
    cond.evidence.push_back(fmt::format("cpu{}: other work {:.1f}% (user {:.1f}%, system {:.1f}%)",
                                        cpu, c.Busy() - share, c.user + c.nice, c.system));
  }
  if (const auto* rx = sample.net_rx_softirqs.get(); rx && static_cast<size_t>(cpu) < rx->size()) {
    const double per_second = length > 0 ? static_cast<double>((*rx)[cpu]) / length : 0;
    cond.evidence.push_back(fmt::format("NET_RX softirqs on cpu{}: {:.0f}/s", cpu, per_second));
  }
  if (drops > 0 && length > 0) {
    cond.evidence.push_back(fmt::format("softnet backlog of cpu{} dropped {:.0f} packets/s", cpu,
                                        static_cast<double>(drops) / length));
  }
  if (std::string lines = LinesOnCpu(sample, cpu); !lines.empty()) {
    cond.evidence.push_back(fmt::format("interrupt lines on cpu{}: {}", cpu, lines));
  }
  cond.evidence.push_back(verdict);
  return cond;
}

void HostWatch::Counters(const record::HostInterval& sample, std::vector<Condition>& out) {
  const double seconds = sample.end - sample.start;
  if (auto softnet = analysis::Softnet(sample);
      softnet && seconds > 0 &&
      (softnet->dropped > 0 ||
       static_cast<double>(softnet->time_squeeze) / seconds >= t_.squeezes_per_second)) {
    softnet_rise_ = samples_;
    softnet_evidence_ = {fmt::format("softnet: {} drops, {} time squeezes in {:.1f} s",
                                     softnet->dropped, softnet->time_squeeze, seconds)};
  }
  if (samples_ - softnet_rise_ < t_.quiet_samples) {
    out.push_back(Condition{EventKind::kSoftnetDrops, "softnet",
                            "softnet backlog drops or time squeezes rising", softnet_evidence_});
  }
  if (const auto* nic = sample.nic_counters.get()) {
    std::vector<std::string> rising;
    for (const auto& [name, delta] : *nic) {
      if (delta <= 0 || name.ends_with("_packets") || name.ends_with("_bytes")) continue;
      rising.push_back(fmt::format("{} +{}", name, delta));
    }
    if (!rising.empty()) {
      nic_rise_ = samples_;
      nic_evidence_ = std::move(rising);
    }
  }
  if (samples_ - nic_rise_ < t_.quiet_samples) {
    out.push_back(Condition{EventKind::kNicErrors, "nic", "the NIC's error or drop counters rising",
                            nic_evidence_});
  }
}

std::vector<Condition> LinkWatch::Judge(const std::string& iface, const LinkState& link) {
  std::vector<Condition> out;
  if (link.carrier && !*link.carrier) {
    out.push_back(Condition{EventKind::kCarrierLost,
                            iface,
                            fmt::format("{}: carrier lost", iface),
                            {fmt::format("/sys/class/net/{}/carrier is 0", iface)}});
    return out;  // no carrier: the speed is unknown, not changed
  }
  if (!link.speed_mbps || *link.speed_mbps <= 0) return out;
  if (!first_speed_) first_speed_ = link.speed_mbps;
  if (*link.speed_mbps != *first_speed_) {
    out.push_back(Condition{
        EventKind::kSpeedChanged,
        iface,
        fmt::format("{}: link speed {} -> {} Mbit/s", iface, *first_speed_, *link.speed_mbps),
        {fmt::format("/sys/class/net/{}/speed was {} at the start, {} now", iface, *first_speed_,
                     *link.speed_mbps)}});
  }
  return out;
}

}  // namespace nicbench::job
