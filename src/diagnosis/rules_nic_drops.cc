// The NIC's own drop and error counters, as deltas over the counted intervals of the test (the
// sampler reads /sys/class/net/IF/statistics at every boundary): packets lost at the NIC, before
// the kernel's softnet backlog or a socket ever saw them.
#include <algorithm>
#include <map>

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

record::Finding NicDropFinding(const End& end, const std::map<std::string, int64_t>& sum,
                               int64_t rx_bad, int64_t tx_bad) {
  auto packets = [&](const char* key) {
    auto it = sum.find(key);
    return it == sum.end() ? int64_t{0} : it->second;
  };
  const int64_t rx = packets("rx_packets"), tx = packets("tx_packets");
  const bool heavy = (rx_bad > 0 && (rx == 0 || rx_bad >= kWarningFraction * rx)) ||
                     (tx_bad > 0 && (tx == 0 || tx_bad >= kWarningFraction * tx));
  const std::string& iface = end.record->nic.interface;
  record::Finding f = MakeFinding(
      "nic-drops", heavy ? Severity::kWarning : Severity::kNotice,
      fmt::format("The NIC dropped or rejected packets during the test: {} received, {} sent "
                  "on {} at the {}",
                  rx_bad, tx_bad, iface, end.name));
  for (const auto& [key, value] : sum) {
    if (value > 0 && key.find("_packets") == std::string::npos) {
      f.evidence.push_back(
          fmt::format("{} {}: {} +{} during the test", end.name, iface, key, value));
    }
  }
  f.evidence.push_back(fmt::format("{} {}: {} packets received, {} sent in the same intervals",
                                   end.name, iface, rx, tx));
  f.meaning =
      "Packets were lost at the NIC itself (its ring was full, the frame was bad, or the "
      "driver refused it) before the kernel's queues saw them; TCP then retransmits.";
  f.next_step =
      "Check ethtool -S IF for the driver's own counters, raise the ring size "
      "(ethtool -G), check the cable and duplex for CRC/frame errors, and look at "
      "the receiving core's softirq load.";
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
    out.push_back(NicDropFinding(*end, sum, rx_bad, tx_bad));
  }
  return out;
}

}  // namespace nicbench::diagnosis
