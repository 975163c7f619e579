// The drop ladder: where along the receive path each end lost packets during the test, from the
// bottom up: the NIC (its ring, buffer and error counters), the softnet backlog, the qdisc, the
// socket, and TCP's retransmissions that followed. One finding names the lowest layer that
// dropped, since a drop low on the ladder causes the symptoms above it. The ladder itself is
// analysis/drop_ladder.h's, the same one the summaries print.
#include <fmt/format.h>

#include "analysis/drop_ladder.h"
#include "diagnosis/nic_view.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using analysis::Layer;
using analysis::Rung;
using record::Severity;

// The rungs that drop packets: the retransmissions rung is what followed, not a drop.
bool DropLayer(const Rung& rung) { return rung.layer != Layer::kRetransmissions; }

// On one host both ends read the same softnet_stat, and on loopback the same /proc/net/snmp:
// such a rung is the host's, judged and shown once, from the local end's ladder (bug: a
// loopback UDP test's Udp.RcvbufErrors was shown at both ends and the lowest drop blamed on
// the sender).
bool HostWide(const RunView& view, const Rung& rung) {
  return (rung.layer == Layer::kSoftnet && view.SharedSoftnet()) ||
         (rung.layer == Layer::kSocket && view.SharedProtocolCounters());
}

// Where a drop on `rung` of `end` happened: the end, or for a host-wide rung the receiving end
// (the socket rung's counters are all receive-side) or else the host.
std::string PlaceOf(const RunView& view, const End& end, const Rung& rung) {
  if (!HostWide(view, rung)) return end.name;
  return rung.layer == Layer::kSocket ? view.SharedPlace(true) : view.HostPlace();
}

std::string LadderText(const std::string& who, const std::vector<const Rung*>& rungs) {
  std::string text = who + ":";
  for (const Rung* r : rungs) {
    text += fmt::format(" {} {};", r->name,
                        r->dropped ? std::to_string(*r->dropped) : std::string("not measured"));
  }
  text.pop_back();
  return text;
}

struct LowestDrop {
  size_t rank = 0;
  const Rung* rung = nullptr;
  std::string place;
};

}  // namespace

Findings DropLadder(const RunView& view, const Thresholds&) {
  record::Finding f = MakeFinding("drop-ladder", Severity::kNotice, "");
  LowestDrop lowest;
  std::vector<const Rung*> shared;  // the host-wide rungs, read once
  std::vector<std::vector<Rung>> ladders;
  const auto ends = view.ends();
  ladders.reserve(ends.size());
  for (const End* end : ends) {
    ladders.push_back(analysis::DropLadderOf(view.run(), *end->record));
    std::vector<const Rung*> own;
    for (size_t rank = 0; rank < ladders.back().size(); ++rank) {
      const Rung& rung = ladders.back()[rank];
      if (!DropLayer(rung)) continue;
      if (HostWide(view, rung) && !end->local) continue;
      (HostWide(view, rung) ? shared : own).push_back(&rung);
      if (!rung.dropped || *rung.dropped == 0) continue;
      if (lowest.rung == nullptr || rank < lowest.rank) {
        lowest = {rank, &rung, PlaceOf(view, *end, rung)};
      }
    }
    if (!own.empty()) f.evidence.push_back(LadderText(end->name, own));
  }
  if (!shared.empty()) {
    f.evidence.push_back(LadderText(view.HostPlace() + ", one host's counters read once", shared));
  }
  if (lowest.rung == nullptr) return {};
  for (const Flow& flow : view.flows()) {
    f.evidence.push_back(
        fmt::format("{}: TCP retransmitted {}", FlowName(flow),
                    flow.retransmits ? std::to_string(*flow.retransmits) : std::string("unknown")));
  }
  f.title =
      fmt::format("The lowest layer that dropped packets: the {} at the {} ({} dropped, {})",
                  lowest.rung->name, lowest.place, *lowest.rung->dropped, lowest.rung->source);
  f.meaning =
      "A packet dropped low on the receive path never reaches the layers above it: TCP sees a "
      "loss and retransmits, and counters higher up may stay clean. Fix the lowest layer that "
      "dropped first; the others often clear with it.";
  f.next_step =
      lowest.rank == 0
          ? "See the nic-ring-overruns or nic-drops finding for the NIC's counters and ring sizes."
      : lowest.rank == 1
          ? "Raise net.core.netdev_max_backlog and spread the receive work (RPS/RSS)."
      : lowest.rung->layer == Layer::kQdisc
          ? "Look at the qdisc's queue (tc -s qdisc show dev IF): a shaper's limit or a full "
            "fq/fq_codel queue drops what the rate cannot carry; raise its limit or its rate "
            "if it is not meant to drop."
          : "Raise the socket buffers (-w, net.core.rmem_max) and check the reading process.";
  return {f};
}

}  // namespace nicbench::diagnosis
