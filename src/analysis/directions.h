// The two directions of one path side by side: the forward record (the client sends) and the
// reverse record (the server sends) of the main job or of `run HOST --both-directions`, turned
// into one row per figure so a reader sees which direction, and which end, differs (seed 1:
// one NIC receives at a quarter of the rate it sends). Every value is read from figures.h,
// cost.h and drop_ladder.h, never computed again here; report renders the rows as text, JSON and
// HTML. A value that was not measured is unknown with its reason, never 0. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "record/run_record.h"

namespace nicbench::analysis {

// One direction's value of a row: known, or unknown and why ("absent: no CPU samples").
struct DirectionValue {
  std::optional<double> value;
  std::string why;  // set when !value
};

struct DirectionRow {
  std::string id;      // stable key for JSON: "goodput", "client.cpu_seconds_per_gigabyte", ...
  std::string figure;  // for people: "goodput (receiver's count)", "client: transfer CPU"
  std::string unit;    // "bit/s", "CPU-s/GB", "interrupts/GB", "segments", "us", "packets"
  bool part = false;   // one of the parts the row above sums (the transfer CPU's parts)
  DirectionValue forward, reverse;
};

// The rows, in this order: goodput as the receiver counted it; for the client, then the server:
// the transfer's CPU-seconds per GB and its parts (nicbench user, nicbench system, softirq and
// irq on the flow cores), the whole host's busy time per GB, the NIC's interrupts per GB; the
// TCP retransmits; the senders' mean RTT; for the client, then the server: the packets each layer
// of the receive path dropped (NIC, softnet backlog, socket; the qdisc is left out: it is never
// sampled, drop_ladder.h).
// REQUIRES: `forward` went client to server and `reverse` server to client, between the same
// two hosts.
std::vector<DirectionRow> CompareDirections(const record::RunRecord& forward,
                                            const record::RunRecord& reverse);

}  // namespace nicbench::analysis
