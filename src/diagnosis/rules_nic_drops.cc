// The NIC's own drop and error counters, as deltas over the counted intervals of the test (the
// sampler reads /sys/class/net/IF/statistics at every boundary): packets lost at the NIC, before
// the kernel's softnet backlog or a socket ever saw them. A software device without a wire
// (veth, tun, bridge, dummy) has no NIC: its counters are the kernel's queues around it, judged
// against the softnet backlog's drops and named as the device's.
#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

// Bad packets per direction from the counters. The kernel's struct lists rx_missed_errors among
// the detailed kinds of rx_errors, and some drivers fold their misses into rx_errors while
// others keep them apart: so a receive count is rx_dropped plus the larger of the two, never
// their sum (one missed frame must not count twice). The other detailed kinds (crc, frame,
// length) are inside rx_errors: evidence, not added.
constexpr const char* kRxDropped[] = {"rx_dropped"};
constexpr const char* kRxMissed[] = {"rx_missed_errors"};
constexpr const char* kRxErrors[] = {"rx_errors"};
constexpr const char* kTxBad[] = {"tx_dropped", "tx_errors"};
// A share of the packets that direction carried above which drops are a warning, not a notice.
constexpr double kWarningFraction = 0.001;

std::map<std::string, int64_t> SumNicCounters(const RunView& view, const End& end, bool* any) {
  std::map<std::string, int64_t> sum;
  for (const auto* s : view.Samples(end)) {
    const auto* counters = s->nic_counters.get();
    if (counters == nullptr) continue;
    *any = true;
    for (const auto& [key, value] : *counters) sum[key] += value;
  }
  return sum;
}

int64_t Total(const std::map<std::string, int64_t>& sum, const auto& keys) {
  int64_t total = 0;
  for (const char* key : keys) {
    if (auto it = sum.find(key); it != sum.end()) total += it->second;
  }
  return total;
}

// The finding's severity and evidence: every counter that moved and the packets beside them.
// The title, meaning and next step are the caller's.
record::Finding DropCountsFinding(const End& end, const std::map<std::string, int64_t>& sum,
                                  int64_t rx_bad, int64_t tx_bad) {
  auto packets = [&](const char* key) {
    auto it = sum.find(key);
    return it == sum.end() ? int64_t{0} : it->second;
  };
  const int64_t rx = packets("rx_packets"), tx = packets("tx_packets");
  const bool heavy = (rx_bad > 0 && (rx == 0 || rx_bad >= kWarningFraction * rx)) ||
                     (tx_bad > 0 && (tx == 0 || tx_bad >= kWarningFraction * tx));
  const std::string& iface = end.record->nic.interface;
  record::Finding f = MakeFinding("nic-drops", heavy ? Severity::kWarning : Severity::kNotice, "");
  for (const auto& [key, value] : sum) {
    if (value > 0 && key.find("_packets") == std::string::npos) {
      f.evidence.push_back(
          fmt::format("{} {}: {} +{} during the test", end.name, iface, key, value));
    }
  }
  f.evidence.push_back(fmt::format("{} {}: {} packets received, {} sent in the same intervals",
                                   end.name, iface, rx, tx));
  return f;
}

record::Finding NicDropFinding(record::Finding f, const End& end, int64_t rx_bad, int64_t tx_bad) {
  f.title = fmt::format(
      "The NIC dropped or rejected packets during the test: {} received, {} sent on {} at the {}",
      rx_bad, tx_bad, end.record->nic.interface, end.name);
  f.meaning =
      "Packets were lost at the NIC itself (its ring was full, the frame was bad, or the "
      "driver refused it) before the kernel's queues saw them; TCP then retransmits.";
  f.next_step =
      "Check ethtool -S IF for the driver's own counters, raise the ring size "
      "(ethtool -G), check the cable and duplex for CRC/frame errors, and look at "
      "the receiving core's softirq load.";
  return f;
}

// Packets the softnet backlogs dropped over the end's counted samples; nullopt when unknown.
std::optional<int64_t> SoftnetDropped(const RunView& view, const End& end) {
  std::optional<int64_t> dropped;
  for (const auto* s : view.Samples(end)) {
    const auto* softnet = s->softnet.get();
    if (softnet == nullptr) continue;
    dropped = dropped.value_or(0);
    for (const record::SoftnetDelta& d : *softnet) *dropped += static_cast<int64_t>(d.dropped);
  }
  return dropped;
}

// A veth's transmit hands the packet to its peer's netif_rx; when the receiving CPU's backlog is
// full the kernel counts the one packet in softnet_stat, as the peer's rx_dropped and as the
// sender's tx_dropped (kernel 6.18 net/core/dev.c enqueue_to_backlog, drivers/net/veth.c
// veth_xmit). Such drops are the softnet-drops finding's: a finding here only for what the
// backlog does not account for, worded as the device's, never the NIC's.
record::Finding SoftwareDeviceFinding(record::Finding f, const End& end, int64_t rx_bad,
                                      int64_t tx_bad, std::optional<int64_t> softnet) {
  const std::string& iface = end.record->nic.interface;
  const std::string driver = end.record->nic.driver.value_or("software device");
  f.title = fmt::format(
      "The {} {} at the {} counted drops the softnet backlog does not account for: {} received, "
      "{} sent",
      driver, iface, end.name, rx_bad, tx_bad);
  f.evidence.push_back(
      softnet ? fmt::format("{}: /proc/net/softnet_stat dropped +{} in the same intervals",
                            end.name, *softnet)
              : fmt::format("{}: /proc/net/softnet_stat not measured", end.name));
  f.meaning = fmt::format(
      "A {} has no NIC and no wire: its drop counters are packets the kernel dropped around it. "
      "A veth counts a drop in its peer CPU's softnet backlog as its own tx_dropped and as the "
      "peer's rx_dropped; beyond the backlog's drops they come from a peer that is down, a "
      "frame over the peer's MTU, or an XDP program.",
      driver);
  f.next_step = fmt::format(
      "Compare `ip -s link show {}` at both ends of the pair with /proc/net/softnet_stat, and "
      "check that the peer is up and both ends have the same MTU.",
      iface);
  return f;
}

}  // namespace

Findings NicDrops(const RunView& view, const Thresholds&) {
  Findings out;
  for (const End* end : view.ends()) {
    if (end->record->nic.loopback) continue;
    bool any = false;
    const auto sum = SumNicCounters(view, *end, &any);
    if (!any) continue;
    const int64_t rx_bad =
        Total(sum, kRxDropped) + std::max(Total(sum, kRxMissed), Total(sum, kRxErrors));
    const int64_t tx_bad = Total(sum, kTxBad);
    if (rx_bad <= 0 && tx_bad <= 0) continue;
    record::Finding f = DropCountsFinding(*end, sum, rx_bad, tx_bad);
    if (!IsSoftwareNic(end->record->nic)) {
      out.push_back(NicDropFinding(std::move(f), *end, rx_bad, tx_bad));
      continue;
    }
    // At one end its rx and tx drops are different packets (the two directions), each also a
    // softnet drop when the backlog refused it: silent while the backlog accounts for both.
    const auto softnet = SoftnetDropped(view, *end);
    if (softnet && rx_bad + tx_bad <= *softnet) continue;
    out.push_back(SoftwareDeviceFinding(std::move(f), *end, rx_bad, tx_bad, softnet));
  }
  return out;
}

}  // namespace nicbench::diagnosis
