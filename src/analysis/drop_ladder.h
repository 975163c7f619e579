// The drop ladder of one end: what each layer of the receive path dropped during the test, from
// the bottom up (the NIC, the softnet backlog, the qdisc, the socket), and the TCP
// retransmissions the end's sending streams made after. Computed once here and read by the
// drop-ladder finding (diagnosis) and by the text and HTML summaries (report). A layer this end
// did not measure is unknown with the reason, never 0. Loopback and software devices without a
// wire (veth, tun, bridge, dummy) have no NIC rung: a veth's rx_dropped and tx_dropped count the
// kernel's queues around it (its peer CPU's softnet backlog), not a NIC. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "record/run_record.h"

namespace nicbench::analysis {

enum class Layer { kNic, kSoftnet, kQdisc, kSocket, kRetransmissions };

struct Rung {
  Layer layer = Layer::kNic;
  const char* name = "";  // "NIC", "softnet backlog", "qdisc", "socket", "retransmissions"
  // Packets this layer dropped (segments retransmitted for kRetransmissions); nullopt: unknown,
  // and `why` says why.
  std::optional<uint64_t> dropped;
  // The counts behind `dropped`, in the layer's own terms: {"misses", 5000}, {"no-buffer", 0}...
  // Some parts are shown beside the total without being in it (softnet's time squeezes, which
  // are not drops; the NIC's error counters, into which drivers also count their misses).
  std::vector<std::pair<std::string, uint64_t>> parts;
  std::string source;  // where the counts come from
  std::string why;     // set when `dropped` is unknown
};

// The rungs of `end` in `run`, bottom up, one per Layer in enum order, over the end's counted
// samples (figures.h CountedSamples) and its NIC's driver counters. The qdisc rung is the root
// qdisc's (the egress queue of the interface that carries the test), from the queue readings
// (record::QueueSample) at the interval ends.
std::vector<Rung> DropLadderOf(const record::RunRecord& run, const record::EndpointRecord& end);

// "5000 (misses 5000, no-buffer 6200)" or "unknown (why)".
std::string RungText(const Rung& rung);

}  // namespace nicbench::analysis
