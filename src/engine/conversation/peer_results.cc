#include "engine/conversation/peer_results.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>

#include <fmt/format.h>

namespace nicbench::engine {

// A UDP receiver's counts come from the sender's 64-bit sequence numbers: a sender that jumps
// past 2^63 makes them larger than the wire's signed integers, and a plain cast sent a negative
// "errors" that every reader refuses (ours: "out of range"), so the peer lost the whole result.
namespace {
int64_t SaturatedCount(uint64_t count) {
  return static_cast<int64_t>(
      std::min<uint64_t>(count, static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
}
}  // namespace

protocol::PeerResults MakeLocalResults(const std::vector<FlowTotals>& totals,
                                       const record::CpuUtilization& cpu,
                                       record::Transport transport,
                                       const std::string& congestion_used) {
  protocol::PeerResults results;
  results.cpu_util_total = cpu.total_percent;
  results.cpu_util_user = cpu.user_percent;
  results.cpu_util_system = cpu.system_percent;
  results.congestion_used = congestion_used;
  bool any_sender = false;
  for (const FlowTotals& t : totals) any_sender = any_sender || t.sender;
  if (!any_sender) {
    results.sender_has_retransmits = -1;
  } else {
    results.sender_has_retransmits = transport == record::Transport::kTcp ? 1 : 0;
  }
  for (const FlowTotals& t : totals) {
    protocol::PeerStream s;
    s.id = t.id;
    s.bytes = t.bytes;
    s.retransmits = t.sender && t.retransmits ? static_cast<int64_t>(*t.retransmits) : -1;
    s.jitter = t.jitter_seconds;
    s.errors = SaturatedCount(t.lost);
    s.packets = SaturatedCount(t.packets);
    s.start_time = 0;
    s.end_time = t.seconds;
    results.streams.push_back(s);
  }
  return results;
}

Result<std::vector<record::StreamTotals>> CombineTotals(const std::vector<FlowTotals>& ours,
                                                        const protocol::PeerResults& peer,
                                                        record::Transport transport) {
  std::map<int, const protocol::PeerStream*> by_id;
  for (const protocol::PeerStream& s : peer.streams) by_id[s.id] = &s;
  for (const auto& [id, stream] : by_id) {
    bool found = std::any_of(ours.begin(), ours.end(),
                             [id = id](const FlowTotals& t) { return t.id == id; });
    if (!found)
      return Fail(fmt::format("the peer's results name stream {} which we do not have", id));
  }
  std::vector<record::StreamTotals> out;
  for (const FlowTotals& t : ours) {
    record::StreamTotals s;
    s.id = t.id;
    s.sender = t.sender;
    const protocol::PeerStream* theirs = by_id.count(t.id) ? by_id[t.id] : nullptr;
    const uint64_t their_bytes = theirs ? theirs->bytes : 0;
    const double their_seconds = theirs ? theirs->end_time - theirs->start_time : 0;
    s.bytes_sent = t.sender ? t.bytes : their_bytes;
    s.bytes_received = t.sender ? their_bytes : t.bytes;
    s.seconds_sent = t.sender ? t.seconds : their_seconds;
    s.seconds_received = t.sender ? their_seconds : t.seconds;
    if (transport == record::Transport::kTcp) {
      if (t.sender && t.retransmits) {
        s.retransmits = *t.retransmits;
      } else if (!t.sender && theirs && theirs->retransmits >= 0) {
        s.retransmits = static_cast<uint64_t>(theirs->retransmits);
      } else {
        s.retransmits = record::Measured<uint64_t>::Unknown(record::Missing::kNotReported);
      }
      if (t.max_snd_cwnd) s.max_snd_cwnd = *t.max_snd_cwnd;
      if (t.min_rtt_us) s.min_rtt_us = *t.min_rtt_us;
      if (t.max_rtt_us) s.max_rtt_us = *t.max_rtt_us;
      s.rtt_sum_us = t.rtt_sum_us;
      s.rtt_samples = t.rtt_samples;
    } else if (t.sender) {
      // The receiver knows loss and jitter; the sender knows how many it sent.
      s.packets = t.packets;
      s.lost = theirs ? static_cast<uint64_t>(std::max<int64_t>(0, theirs->errors)) : 0;
      s.jitter_seconds = theirs ? theirs->jitter : 0;
    } else {
      s.packets = theirs ? static_cast<uint64_t>(std::max<int64_t>(0, theirs->packets)) : t.packets;
      s.lost = t.lost;
      s.out_of_order = t.out_of_order;
      s.jitter_seconds = t.jitter_seconds;
    }
    out.push_back(std::move(s));
  }
  return out;
}

record::PeerReport MakePeerReport(const protocol::PeerResults& theirs, bool asked_for_output) {
  record::PeerReport peer;
  peer.cpu =
      record::CpuUtilization{theirs.cpu_util_total, theirs.cpu_util_user, theirs.cpu_util_system};
  peer.congestion_used = theirs.congestion_used;
  if (!asked_for_output) return peer;
  peer.server_output_text = theirs.server_output_text;
  if (theirs.server_output_json) peer.server_output_json = theirs.server_output_json->dump();
  return peer;
}

}  // namespace nicbench::engine
