// Latency under load (run --under-load, docs/latency.md): how much the test delayed the probes
// beside it, and in which queue the delay sits. The figures are analysis/under_load.h's; this
// rule judges them and names the layer: a qdisc or a device queue on one of the two hosts when
// its backlog at its drain rate explains most of the added delay, else the network beyond them.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "analysis/under_load.h"
#include "base/units.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

// Added latency below this, or below the idle latency itself, is not bufferbloat.
constexpr double kMinAddedMs = 5.0;
// A queue that explains at least this share of the added delay is named as its place.
constexpr double kExplainsShare = 0.5;

std::string Ms(double ms) {
  return ms < 10 ? fmt::format("{:.2f} ms", ms) : fmt::format("{:.0f} ms", ms);
}

// The queue with the largest delay that foreign probes share (not the sender's own socket).
const analysis::QueueDelay* LargestShared(const analysis::UnderLoadFigures& f) {
  const analysis::QueueDelay* best = nullptr;
  for (const analysis::QueueDelay& q : f.queues) {
    if (q.layer.rfind("sender's socket", 0) == 0 || !q.ms.known()) continue;
    if (best == nullptr || q.ms.value() > best->ms.value()) best = &q;
  }
  return best;
}

std::string Interface(const RunView& view, const std::string& end) {
  for (const End* e : view.ends()) {
    if ((e->client ? "client" : "server") == end) return e->record->nic.interface;
  }
  return "IF";
}

void AddEvidence(const analysis::UnderLoadFigures& f, record::Finding& finding) {
  finding.evidence.push_back(fmt::format(
      "probes on a kept connection: {} idle, {} loaded (trimmed means; loaded p99 {})",
      Ms(f.idle_kept.trimmed_mean_ms.value_or(0)), Ms(f.loaded_kept.trimmed_mean_ms.value_or(0)),
      Ms(f.loaded_kept.p99_ms.value_or(0))));
  for (const analysis::QueueDelay& q : f.queues) {
    if (!q.bytes.known()) continue;
    finding.evidence.push_back(
        fmt::format("{} {}: {} waiting on average{}", q.end, q.layer, FormatBytes(q.bytes.value()),
                    q.ms.known() && q.drain_bits_per_second.known()
                        ? fmt::format(" = {} at {}", Ms(q.ms.value()),
                                      FormatBitRate(q.drain_bits_per_second.value()))
                        : ""));
  }
  if (f.beyond_ms.known()) {
    finding.evidence.push_back("not explained by either host's queues: " + Ms(f.beyond_ms.value()));
  }
}

std::string NextStep(const analysis::QueueDelay& q, const std::string& iface) {
  if (q.layer.rfind("qdisc", 0) == 0) {
    return fmt::format(
        "an AQM qdisc on {} (tc qdisc replace dev {} root fq_codel, or cake with "
        "its bandwidth set under the link's), or a smaller limit on the {}",
        iface, iface, q.layer);
  }
  return fmt::format(
      "a smaller device queue on {}: byte queue limits "
      "(/sys/class/net/{}/queues/tx-*/byte_queue_limits/limit_max) or the "
      "transmit ring (ethtool -G {} tx N)",
      iface, iface, iface);
}

}  // namespace

Findings Bufferbloat(const RunView& view, const Thresholds&) {
  if (!view.run().under_load) return {};
  const analysis::UnderLoadFigures f = analysis::ComputeUnderLoad(view.run());
  if (!f.added_ms.known()) return {};
  const double idle = f.idle_kept.trimmed_mean_ms.known() ? f.idle_kept.trimmed_mean_ms.value()
                                                          : f.idle_rtt_ms.value_or(0);
  const double loaded = idle + f.added_ms.value();
  if (f.added_ms.value() < std::max(kMinAddedMs, idle)) return {};
  const analysis::QueueDelay* q = LargestShared(f);
  const bool placed = q != nullptr && q->ms.value() >= kExplainsShare * f.added_ms.value();
  record::Finding finding = MakeFinding(
      "bufferbloat", Severity::kWarning,
      placed ? fmt::format("bufferbloat in the {}'s {} ({} waiting = {}): latency under load "
                           "rises from {} to {}",
                           q->end, q->layer, FormatBytes(q->bytes.value()), Ms(q->ms.value()),
                           Ms(idle), Ms(loaded))
             : fmt::format("latency under load rises from {} to {} in a queue beyond these two "
                           "hosts",
                           Ms(idle), Ms(loaded)));
  AddEvidence(f, finding);
  finding.meaning =
      "while the test runs, everything else on this path (a request, a page, a call) waits "
      "behind its data in that queue: the link is busy and slow to respond";
  finding.next_step = placed ? NextStep(*q, Interface(view, q->end))
                             : "the bottleneck's queue is on the path (a router, switch or "
                               "modem): an AQM there (fq_codel, cake), or a shaper just below "
                               "the bottleneck's rate on this host so the queue forms here";
  return {finding};
}

}  // namespace nicbench::diagnosis
