// What a NIC driver's own counters (ethtool -S) mean. Every driver names them its own way: a
// receive ring that ran out of descriptors is rx_missed_errors on e1000e/igb/ixgbe, rx_missed on
// r8169, rx_out_of_buffer on mlx5, "[3]: rx_discards" on bnxt_en and bnx2x, rx_drops_no_pbuf on
// be2net, port.rx_dropped on i40e. The table in driver_counters.cc was built from real
// `ethtool -S` captures of eleven drivers (tests/testdata/ethtool/, docs/diagnosis.md lists
// it); a name it does not know is kOther, never a guess. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "record/facts.h"

namespace nicbench::analysis {

enum class CounterKind {
  kOther,
  kRxMissed,        // the NIC had no room: frames lost before any descriptor (missed packets)
  kRxNoBuffer,      // the host ring had no free descriptor (not refilled in time)
  kRxFifo,          // the NIC's own packet buffer (FIFO, BRB, port buffer) overflowed
  kRxAllocFail,     // the driver could not allocate a buffer to refill the ring
  kTxRingFull,      // the transmit ring filled and the driver stopped the queue
  kTxDrop,          // the driver or the NIC dropped frames it was given to send
  kPauseRx,         // pause (XOFF) or PFC frames received: the partner asked this NIC to wait
  kPauseTx,         // pause frames sent: this NIC asked its partner to wait
  kRxQueuePackets,  // packets received on one queue
  kTxQueuePackets,  // packets sent on one queue
};

// "rx ring misses", "pause frames received", ...
const char* CounterKindName(CounterKind kind);

struct CounterClass {
  CounterKind kind = CounterKind::kOther;
  int queue = -1;  // the queue for per-queue counters, -1 for a port or device total
};

// The meaning of the counter `name` of `driver` ("e1000e", as ethtool -i names it; empty when
// unknown: only the names every driver that uses them means the same way are recognised then).
CounterClass ClassifyDriverCounter(std::string_view driver, std::string_view name);

// How the classified counters moved between two readings.
struct DriverCounterMoves {
  // Per kind that moved: the amount. Where a driver counts one kind at several levels (i40e's
  // port.rx_dropped and rx_dropped), the largest of its totals, not their sum; per-queue
  // counters are summed only when the driver has no total of that kind.
  std::map<CounterKind, uint64_t> totals;
  // Per kind: the counters that moved, with their deltas, in name order.
  std::map<CounterKind, std::vector<std::pair<std::string, uint64_t>>> moved;
  // Packets per queue; queues that did not move are absent.
  std::map<int, uint64_t> rx_queue_packets, tx_queue_packets;

  uint64_t Total(CounterKind kind) const {
    auto it = totals.find(kind);
    return it == totals.end() ? 0 : it->second;
  }
};

// The moves from `before` to `after`; a counter that went backwards (a driver reset) counts 0.
DriverCounterMoves DriverCounterDeltas(std::string_view driver,
                                       const std::map<std::string, uint64_t>& before,
                                       const std::map<std::string, uint64_t>& after);

// The same for a NIC's two readings (driver_stats when the data started, driver_stats_after
// when the test ended); nullopt when either is unknown.
std::optional<DriverCounterMoves> DriverCounterDeltas(const record::NicFacts& nic);

}  // namespace nicbench::analysis
