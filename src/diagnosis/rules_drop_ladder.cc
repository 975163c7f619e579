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

std::string LadderText(const End& end, const std::vector<Rung>& ladder) {
  std::string text = end.name + ":";
  for (const Rung& r : ladder) {
    if (!DropLayer(r)) continue;
    text += fmt::format(" {} {};", r.name,
                        r.dropped ? std::to_string(*r.dropped) : std::string("not measured"));
  }
  text.pop_back();
  return text;
}

}  // namespace

Findings DropLadder(const RunView& view, const Thresholds&) {
  record::Finding f = MakeFinding("drop-ladder", Severity::kNotice, "");
  const End* lowest_end = nullptr;
  const Rung* lowest = nullptr;
  size_t lowest_rank = 0;
  std::vector<std::vector<Rung>> ladders;
  const auto ends = view.ends();
  ladders.reserve(ends.size());
  for (const End* end : ends) {
    ladders.push_back(analysis::DropLadderOf(view.run(), *end->record));
    const auto& ladder = ladders.back();
    f.evidence.push_back(LadderText(*end, ladder));
    for (size_t rank = 0; rank < ladder.size(); ++rank) {
      if (!DropLayer(ladder[rank]) || !ladder[rank].dropped || *ladder[rank].dropped == 0) {
        continue;
      }
      if (lowest == nullptr || rank < lowest_rank) {
        lowest = &ladder[rank];
        lowest_rank = rank;
        lowest_end = end;
      }
      break;
    }
  }
  if (lowest == nullptr) return {};
  for (const Flow& flow : view.flows()) {
    f.evidence.push_back(
        fmt::format("{}: TCP retransmitted {}", FlowName(flow),
                    flow.retransmits ? std::to_string(*flow.retransmits) : std::string("unknown")));
  }
  f.title = fmt::format("The lowest layer that dropped packets: the {} at the {} ({} dropped, {})",
                        lowest->name, lowest_end->name, *lowest->dropped, lowest->source);
  f.meaning =
      "A packet dropped low on the receive path never reaches the layers above it: TCP sees a "
      "loss and retransmits, and counters higher up may stay clean. Fix the lowest layer that "
      "dropped first; the others often clear with it.";
  f.next_step =
      lowest_rank == 0
          ? "See the nic-ring-overruns or nic-drops finding for the NIC's counters and ring sizes."
      : lowest_rank == 1
          ? "Raise net.core.netdev_max_backlog and spread the receive work (RPS/RSS)."
          : "Raise the socket buffers (-w, net.core.rmem_max) and check the reading process.";
  return {f};
}

}  // namespace nicbench::diagnosis
