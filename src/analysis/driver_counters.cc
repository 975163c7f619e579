#include "analysis/driver_counters.h"

#include <algorithm>
#include <cctype>

namespace nicbench::analysis {
namespace {

using K = CounterKind;

// One name: `pattern` is the counter's name with '#' where the queue number stands ('%' for a
// number that is not a queue);
// `drivers` lists the drivers that use the name this way ("" = any driver that has the name
// means it so, as far as the captures and the drivers' sources show).
struct Entry {
  const char* pattern;
  K kind;
  const char* drivers = "";
};

// Read from the captures in tests/testdata/ethtool (e1000e, r8169, mlx5_core, bnxt_en, bnx2x,
// be2net, i40e, iavf, ice, ena, virtio_net) and from the names igb and ixgbe share with e1000e.
constexpr Entry kTable[] = {
    // Receive: frames lost because the host did not keep up.
    {"rx_missed_errors", K::kRxMissed},  // e1000e, igb, ixgbe: the MPC register
    {"rx_missed", K::kRxMissed, "r8169"},
    {"rx_no_buffer_count", K::kRxNoBuffer},  // e1000e, igb: RNBC
    {"rx_out_of_buffer", K::kRxNoBuffer},    // mlx5: no receive WQE
    {"rx_total_ring_discards", K::kRxNoBuffer, "bnxt_en"},
    {"[#]: rx_discards", K::kRxNoBuffer, "bnxt_en bnx2x"},
    {"rx_discards", K::kRxNoBuffer, "bnx2x iavf"},
    {"rx_drops_no_pbuf", K::kRxNoBuffer, "be2net"},
    {"rx_drops_no_erx_descr", K::kRxNoBuffer, "be2net"},
    {"rxq#: rx_drops_no_frags", K::kRxNoBuffer, "be2net"},
    {"port.rx_dropped", K::kRxNoBuffer, "i40e"},
    {"rx_dropped", K::kRxNoBuffer, "i40e ice"},
    {"rx_dropped.nic", K::kRxNoBuffer, "ice"},
    // Receive: the NIC's own buffer overflowed.
    {"rx_fifo_errors", K::kRxFifo},
    {"rx_discards_phy", K::kRxFifo},  // mlx5: the port's buffer
    {"rx_input_fifo_overflow_drop", K::kRxFifo, "be2net"},
    {"rxpp_fifo_overflow_drop", K::kRxFifo, "be2net"},
    {"pmem_fifo_overflow_drop", K::kRxFifo, "be2net"},
    {"rx_drops_no_tpre_descr", K::kRxFifo, "be2net"},
    {"rx_brb_discard", K::kRxFifo, "bnx2x"},
    {"rx_brb_truncate", K::kRxFifo, "bnx2x"},
    {"rx_stat_discard", K::kRxFifo, "bnxt_en"},
    // Receive: no memory to refill the ring.
    {"alloc_rx_buff_failed", K::kRxAllocFail},  // e1000e, igb
    {"rx_alloc_fail", K::kRxAllocFail},         // i40e, ice
    {"rx_pg_alloc_fail", K::kRxAllocFail},      // i40e, ice
    {"rx_buff_alloc_err", K::kRxAllocFail},     // mlx5
    {"rx#_buff_alloc_err", K::kRxAllocFail},    // mlx5
    {"rx_total_oom_discards", K::kRxAllocFail, "bnxt_en"},
    {"[#]: rx_skb_alloc_discard", K::kRxAllocFail, "bnx2x"},
    {"rxq#: rx_drops_no_skbs", K::kRxAllocFail, "be2net"},
    {"queue_#_rx_page_alloc_fail", K::kRxAllocFail, "ena"},
    {"queue_#_rx_skb_alloc_fail", K::kRxAllocFail, "ena"},
    // Transmit: the ring filled and the queue was stopped.
    {"tx_restart_queue", K::kTxRingFull},  // e1000e, igb, ixgbe
    {"tx_restart", K::kTxRingFull, "ice"},
    {"tx_busy", K::kTxRingFull, "i40e ice"},
    {"tx_queue_stopped", K::kTxRingFull},  // mlx5
    {"tx#_stopped", K::kTxRingFull, "mlx5_core"},
    {"txq#: tx_stops", K::kTxRingFull, "be2net"},
    {"queue_#_tx_queue_stop", K::kTxRingFull, "ena"},
    // Transmit: dropped.
    {"tx_queue_dropped", K::kTxDrop},  // mlx5
    {"tx#_dropped", K::kTxDrop, "mlx5_core"},
    {"tx_discards_phy", K::kTxDrop},  // mlx5
    {"txq#: tx_drv_drops", K::kTxDrop, "be2net"},
    {"tx_total_ring_discards", K::kTxDrop, "bnxt_en"},
    {"[#]: tx_discards", K::kTxDrop, "bnxt_en"},
    {"tx_discards", K::kTxDrop, "iavf"},
    // Flow control: XOFF and PFC frames (XON frames only end a pause).
    {"rx_flow_control_xoff", K::kPauseRx},  // e1000e, igb, ixgbe
    {"tx_flow_control_xoff", K::kPauseTx},
    {"port.link_xoff_rx", K::kPauseRx, "i40e"},
    {"port.link_xoff_tx", K::kPauseTx, "i40e"},
    {"port.rx_priority_%_xoff_rx", K::kPauseRx, "i40e"},
    {"port.tx_priority_%_xoff_tx", K::kPauseTx, "i40e"},
    {"link_xoff_rx.nic", K::kPauseRx, "ice"},
    {"link_xoff_tx.nic", K::kPauseTx, "ice"},
    {"rx_priority_%_xoff.nic", K::kPauseRx, "ice"},
    {"tx_priority_%_xoff.nic", K::kPauseTx, "ice"},
    {"rx_pause_ctrl_phy", K::kPauseRx},  // mlx5
    {"tx_pause_ctrl_phy", K::kPauseTx},
    {"rx_global_pause", K::kPauseRx, "mlx5_core"},
    {"tx_global_pause", K::kPauseTx, "mlx5_core"},
    {"rx_pause_frames", K::kPauseRx},  // bnx2x, bnxt_en, be2net
    {"tx_pause_frames", K::kPauseTx},  // bnx2x, bnxt_en
    {"tx_pauseframes", K::kPauseTx, "be2net"},
    {"rx_priority_pause_frames", K::kPauseRx, "be2net"},
    {"tx_priority_pauseframes", K::kPauseTx, "be2net"},
    {"rx_pfc_frames", K::kPauseRx, "bnxt_en"},
    {"tx_pfc_frames", K::kPauseTx, "bnxt_en"},
    {"pfc_frames_received", K::kPauseRx, "bnx2x"},
    {"pfc_frames_sent", K::kPauseTx, "bnx2x"},
    // Packets per queue.
    {"rx_queue_#_packets", K::kRxQueuePackets},  // virtio_net, ice, igb, ixgbe
    {"tx_queue_#_packets", K::kTxQueuePackets},
    {"rx-#.packets", K::kRxQueuePackets},  // i40e, iavf
    {"tx-#.packets", K::kTxQueuePackets},
    {"rx#_packets", K::kRxQueuePackets, "mlx5_core"},
    {"tx#_packets", K::kTxQueuePackets, "mlx5_core"},
    {"queue_#_rx_cnt", K::kRxQueuePackets, "ena"},
    {"queue_#_tx_cnt", K::kTxQueuePackets, "ena"},
    {"rxq#: rx_pkts", K::kRxQueuePackets, "be2net"},
    {"txq#: tx_pkts", K::kTxQueuePackets, "be2net"},
    {"[#]: rx_ucast_packets", K::kRxQueuePackets, "bnxt_en bnx2x"},
    {"[#]: tx_ucast_packets", K::kTxQueuePackets, "bnxt_en bnx2x"},
    // veth counts per receive queue only what its NAPI path took (GRO on at the receiver and
    // the sender's TSO off, or XDP: kernel 6.18 drivers/net/veth.c veth_xdp_rcv); the rest goes
    // through the peer CPU's backlog and no per-queue counter moves.
    {"rx_queue_#_xdp_packets", K::kRxQueuePackets, "veth"},
};

// Matches `name` against `pattern`; a '#' takes one or more digits, stored in *queue, a '%'
// one or more digits that are not a queue (a priority).
bool Match(std::string_view pattern, std::string_view name, int* queue) {
  size_t p = 0, n = 0;
  while (p < pattern.size()) {
    if (pattern[p] == '#' || pattern[p] == '%') {
      size_t start = n;
      int value = 0;
      while (n < name.size() && std::isdigit(static_cast<unsigned char>(name[n])) &&
             n - start < 6) {
        value = value * 10 + (name[n++] - '0');
      }
      if (n == start) return false;
      if (pattern[p] == '#') *queue = value;
      ++p;
      continue;
    }
    if (n >= name.size() || pattern[p] != name[n]) return false;
    ++p;
    ++n;
  }
  return n == name.size();
}

// True when `list` (space-separated) is empty or names `driver`.
bool UsedBy(std::string_view list, std::string_view driver) {
  if (list.empty()) return true;
  while (!list.empty()) {
    size_t space = list.find(' ');
    if (list.substr(0, space) == driver) return true;
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
  }
  return false;
}

}  // namespace

const char* CounterKindName(CounterKind kind) {
  switch (kind) {
    case K::kOther: return "other";
    case K::kRxMissed: return "missed frames (no room on receive)";
    case K::kRxNoBuffer: return "receive ring out of descriptors";
    case K::kRxFifo: return "NIC packet buffer overflow";
    case K::kRxAllocFail: return "receive buffer allocation failures";
    case K::kTxRingFull: return "transmit ring full (queue stopped)";
    case K::kTxDrop: return "transmit drops";
    case K::kPauseRx: return "pause frames received";
    case K::kPauseTx: return "pause frames sent";
    case K::kRxQueuePackets: return "packets received per queue";
    case K::kTxQueuePackets: return "packets sent per queue";
  }
  return "other";
}

CounterClass ClassifyDriverCounter(std::string_view driver, std::string_view name) {
  for (const Entry& e : kTable) {
    int queue = -1;
    if (!Match(e.pattern, name, &queue)) continue;
    if (!UsedBy(e.drivers, driver)) continue;
    return {e.kind, queue};
  }
  return {};
}

DriverCounterMoves DriverCounterDeltas(std::string_view driver,
                                       const std::map<std::string, uint64_t>& before,
                                       const std::map<std::string, uint64_t>& after) {
  DriverCounterMoves out;
  std::map<CounterKind, uint64_t> largest_total, queue_sum;
  for (const auto& [name, value] : after) {
    const CounterClass c = ClassifyDriverCounter(driver, name);
    if (c.kind == K::kOther) continue;
    auto was = before.find(name);
    if (was == before.end() || value <= was->second) continue;
    const uint64_t delta = value - was->second;
    out.moved[c.kind].emplace_back(name, delta);
    if (c.kind == K::kRxQueuePackets) out.rx_queue_packets[c.queue] += delta;
    if (c.kind == K::kTxQueuePackets) out.tx_queue_packets[c.queue] += delta;
    if (c.queue < 0) {
      largest_total[c.kind] = std::max(largest_total[c.kind], delta);
    } else {
      queue_sum[c.kind] += delta;
    }
  }
  out.totals = queue_sum;
  for (const auto& [kind, total] : largest_total) out.totals[kind] = total;
  return out;
}

std::optional<DriverCounterMoves> DriverCounterDeltas(const record::NicFacts& nic) {
  const auto* before = nic.driver_stats.get();
  const auto* after = nic.driver_stats_after.get();
  if (before == nullptr || after == nullptr) return std::nullopt;
  const std::string driver = nic.driver.known() ? nic.driver.value() : std::string();
  return DriverCounterDeltas(driver, *before, *after);
}

}  // namespace nicbench::analysis
