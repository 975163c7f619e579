// The host's and the link's conditions (docs/monitor.md, "Events").
#include <fmt/format.h>

#include <numeric>

#include "analysis/host_figures.h"
#include "job/monitor_rules.h"

namespace nicbench::job {
namespace {

using record::EventKind;

constexpr size_t kCalmSamples = 10;  // the interrupt rate "before" is their mean

double Mean(const std::deque<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
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

}  // namespace

std::vector<Condition> HostWatch::Judge(const record::HostInterval& sample) {
  std::vector<Condition> out;
  ++samples_;
  const double seconds = sample.end - sample.start;
  const std::optional<double> rate = InterruptRate(sample);
  bool any_hot = false;
  if (const auto* cpus = sample.cpus.get()) {
    for (const record::CpuShare& c : *cpus) {
      const double share = c.irq + c.softirq;
      if (share < t_.saturated_percent) {
        saturated_seconds_.erase(c.cpu);
        continue;
      }
      any_hot = true;
      saturated_seconds_[c.cpu] += seconds;
    }
    if (!any_hot) {
      irq_rate_before_.reset();
      if (rate) calm_irq_rates_.push_back(*rate);
      if (calm_irq_rates_.size() > kCalmSamples) calm_irq_rates_.pop_front();
    } else if (!irq_rate_before_ && !calm_irq_rates_.empty()) {
      irq_rate_before_ = Mean(calm_irq_rates_);
    }
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

std::optional<Condition> HostWatch::Saturated(const record::HostInterval& sample, int cpu,
                                              double share, double seconds) {
  const double needed = std::chrono::duration<double>(t_.saturated_for).count();
  if (seconds + 1e-9 < needed) return std::nullopt;
  const record::CpuShare& c = sample.cpus.value()[static_cast<size_t>(cpu)];
  const bool hard = c.irq >= c.softirq;
  bool livelock = false;
  const std::string verdict =
      RateVerdict(irq_rate_before_, InterruptRate(sample), t_.irq_rise_factor, livelock);
  Condition cond;
  cond.kind = EventKind::kCoreSaturated;
  cond.subject = fmt::format("cpu{}", cpu);
  cond.summary = fmt::format("cpu{} saturated by {} ({:.0f}%) for {:.0f} s{}", cpu,
                             hard ? "hard irq" : "softirq", share, seconds,
                             livelock ? ": livelocked interrupt handler or poll loop" : "");
  cond.evidence.push_back(fmt::format("cpu{}: hard irq {:.1f}%, softirq {:.1f}%, idle {:.1f}%", cpu,
                                      c.irq, c.softirq, c.idle));
  if (const auto* rx = sample.net_rx_softirqs.get(); rx && static_cast<size_t>(cpu) < rx->size()) {
    const double length = sample.end - sample.start;  // `seconds` is how long it has been hot
    const double per_second = length > 0 ? static_cast<double>((*rx)[cpu]) / length : 0;
    cond.evidence.push_back(fmt::format("NET_RX softirqs on cpu{}: {:.0f}/s", cpu, per_second));
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
