// `nicbench monitor` (docs/monitor.md): the values a monitor hands out while it runs. An event
// is opened when a condition starts and resolved when it ends; both lines carry the same id.
// The metrics are the monitor's running totals, which report/monitor_report.h renders in the
// Prometheus text format. Plain values; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nicbench::record {

enum class EventKind {
  kDegraded,          // goodput of a direction below the baseline (compare's statistics)
  kLatencyUp,         // the latency probe's p99 well above its baseline
  kLoss,              // probes unanswered, UDP datagrams lost, TCP retransmitting
  kCoreSaturated,     // a core busy in irq/softirq for longer than the threshold
  kSoftnetDrops,      // softnet backlog drops or time squeezes rising
  kNicErrors,         // the NIC's error or drop counters rising
  kCarrierLost,       // the interface has no carrier
  kSpeedChanged,      // the link renegotiated to another speed
  kPeerUnreachable,   // neither test nor probe reaches the peer
  kStoreUnavailable,  // a run or event could not be stored
};
inline constexpr EventKind kEventKinds[] = {
    EventKind::kDegraded,        EventKind::kLatencyUp,    EventKind::kLoss,
    EventKind::kCoreSaturated,   EventKind::kSoftnetDrops, EventKind::kNicErrors,
    EventKind::kCarrierLost,     EventKind::kSpeedChanged, EventKind::kPeerUnreachable,
    EventKind::kStoreUnavailable};

// "degraded", "latency-up", "loss", "core-saturated", "softnet-drops", "nic-errors",
// "carrier-lost", "speed-changed", "peer-unreachable", "store-unavailable".
std::string_view EventKindName(EventKind kind);

struct MonitorEvent {
  std::string monitor;  // the monitor's id
  uint64_t id = 0;      // from 1 in one monitor; the opened and the resolved line share it
  EventKind kind = EventKind::kDegraded;
  std::string subject;  // what it is about: "forward", "cpu0", "eth0", the peer
  bool resolved = false;
  double at_unix = 0;                 // when this change was seen, Unix seconds
  double opened_unix = 0;             // when the event opened (== at_unix on the opened line)
  std::string summary;                // one line for people
  std::vector<std::string> evidence;  // the figures behind it, as the diagnosis words them
};

// Running totals since the monitor started. Counters only grow; gauges are the latest value.
struct MonitorMetrics {
  std::string peer;
  // Per CPU ("0", "1"...) and mode ("user", "system", "irq", "softirq", ...): CPU-seconds.
  std::map<std::string, std::map<std::string, double>> cpu_seconds;
  // Per interrupt line, named "IRQ:NAME" ("24:eth0-TxRx-0"): interrupts.
  std::map<std::string, uint64_t> interrupts;
  uint64_t softnet_dropped = 0, softnet_time_squeezed = 0, softnet_processed = 0;
  // The NIC's /sys statistics counters ("rx_dropped", "tx_errors"...): totals since start.
  std::map<std::string, int64_t> nic_counters;
  std::string nic;  // the interface those counters are of; "" on loopback
  // Goodput of the latest periodic test per direction ("forward", "reverse"), bits/s.
  std::map<std::string, double> goodput_bits_per_second;
  uint64_t tests = 0, tests_failed = 0;
  // Request/response latency of the probes: cumulative counts at or below each bound, seconds.
  std::vector<double> latency_bounds_seconds;
  std::vector<uint64_t> latency_buckets;  // same size as the bounds; plus +Inf == count
  uint64_t latency_count = 0;
  double latency_sum_seconds = 0;
  std::map<std::string, int> open_events;  // by kind name, every kind present (0 when none)
  uint64_t events_opened = 0;
  double samples = 0;         // host samples taken
  uint64_t peer_samples = 0;  // a nicbench peer's host samples received (with the probes)
};

}  // namespace nicbench::record
