// The drop ladder: where along the receive path each end lost packets during the test, from the
// bottom up: the NIC (its ring, buffer and error counters), the softnet backlog, the qdisc, the
// socket, and TCP's retransmissions that followed. One finding names the lowest layer that
// dropped, since a drop low on the ladder causes the symptoms above it.
#include <fmt/format.h>

#include "diagnosis/nic_view.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using analysis::CounterKind;
using record::Severity;

struct Rung {
  const char* layer;
  std::optional<uint64_t> dropped;  // nullopt: not measured at this end
  std::string detail;
};

std::optional<uint64_t> NicRung(const RunView& view, const End& end, std::string& detail) {
  if (!HardwareNic(end) && end.record->nic.loopback) return std::nullopt;
  std::optional<uint64_t> out;
  for (const char* key : {"rx_dropped", "rx_missed_errors", "rx_fifo_errors", "tx_dropped"}) {
    auto v = NicCounterSum(view, end, key);
    if (!v) continue;
    out = out.value_or(0) + static_cast<uint64_t>(std::max<int64_t>(*v, 0));
  }
  if (out) detail = "/sys/class/net statistics";
  if (const auto m = analysis::DriverCounterDeltas(end.record->nic)) {
    const uint64_t driver =
        std::max(m->Total(CounterKind::kRxMissed), m->Total(CounterKind::kRxNoBuffer)) +
        m->Total(CounterKind::kRxFifo) + m->Total(CounterKind::kTxDrop);
    if (!out || driver > *out) {
      out = driver;
      detail = "the driver's ring and buffer counters (ethtool -S)";
    }
  }
  return out;
}

std::optional<uint64_t> SoftnetRung(const RunView& view, const End& end) {
  std::optional<uint64_t> out;
  for (const auto* s : view.Samples(end)) {
    if (const auto* softnet = s->softnet.get()) {
      for (const auto& d : *softnet) out = out.value_or(0) + d.dropped;
    }
  }
  return out;
}

std::optional<uint64_t> SocketRung(const RunView& view, const End& end) {
  std::optional<uint64_t> out;
  for (const char* key : {"Udp.RcvbufErrors", "TcpExt.TCPRcvQDrop", "TcpExt.TCPBacklogDrop"}) {
    auto v = NetCounterSum(view, end, key);
    if (v) out = out.value_or(0) + static_cast<uint64_t>(std::max<int64_t>(*v, 0));
  }
  return out;
}

std::vector<Rung> LadderOf(const RunView& view, const End& end) {
  std::string nic_detail;
  auto nic = NicRung(view, end, nic_detail);
  return {
      {"NIC", nic, nic_detail},
      {"softnet backlog", SoftnetRung(view, end), "/proc/net/softnet_stat dropped"},
      {"qdisc", std::nullopt, "not sampled during the test"},
      {"socket", SocketRung(view, end), "Udp.RcvbufErrors, TcpExt.TCPRcvQDrop, TCPBacklogDrop"},
  };
}

std::string LadderText(const End& end, const std::vector<Rung>& ladder) {
  std::string text = end.name + ":";
  for (const Rung& r : ladder) {
    text += fmt::format(" {} {};", r.layer,
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
    ladders.push_back(LadderOf(view, *end));
    const auto& ladder = ladders.back();
    f.evidence.push_back(LadderText(*end, ladder));
    for (size_t rank = 0; rank < ladder.size(); ++rank) {
      if (!ladder[rank].dropped || *ladder[rank].dropped == 0) continue;
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
                        lowest->layer, lowest_end->name, *lowest->dropped, lowest->detail);
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
