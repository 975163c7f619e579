#include "report/sums.h"

#include <algorithm>

#include "report/format.h"

namespace nicbench::report {

bool InSet(StreamSet set, bool local_sends) {
  switch (set) {
    case StreamSet::kAll: return true;
    case StreamSet::kLocalSends: return local_sends;
    case StreamSet::kLocalReceives: return !local_sends;
  }
  return true;
}

IntervalSum SumInterval(const record::IntervalRecord& interval, StreamSet set) {
  IntervalSum sum;
  sum.omitted = interval.omitted;
  int receivers = 0;
  for (const record::StreamInterval& s : interval.streams) {
    if (!InSet(set, s.sender)) continue;
    if (sum.streams++ == 0) {
      sum.start = s.start;
      sum.end = s.end;
      sum.sender = s.sender;
    }
    sum.bytes += s.bytes;
    sum.retransmits += s.retransmits;
    sum.packets += s.packets;
    sum.lost += s.lost;
    sum.out_of_order += s.out_of_order;
    if (!s.sender) {
      sum.jitter_seconds += s.jitter_seconds;
      ++receivers;
    }
  }
  if (receivers > 0) sum.jitter_seconds /= receivers;
  sum.bits_per_second = BitsPerSecond(static_cast<double>(sum.bytes), sum.end - sum.start);
  return sum;
}

bool SideKnown(const record::StreamTotals& s, bool sent) {
  return s.peer_reported || s.sender == sent;
}

namespace {

// Shared part of SumSent/SumReceived; `sent` picks the side.
EndSum SumSide(const std::vector<record::StreamTotals>& streams, StreamSet set, bool sent) {
  EndSum sum;
  uint64_t retransmits = 0;
  const record::StreamTotals* unknown_retransmits = nullptr;
  for (const record::StreamTotals& s : streams) {
    if (!InSet(set, s.sender) || !SideKnown(s, sent)) continue;
    if (sum.streams++ == 0) sum.sender = s.sender;
    const uint64_t bytes = sent ? s.bytes_sent : s.bytes_received;
    if (sum.streams == 1 || bytes < sum.slowest_bytes) {
      sum.slowest_id = s.id;
      sum.slowest_bytes = bytes;
    }
    sum.bytes += bytes;
    sum.seconds = std::max(sum.seconds, sent ? s.seconds_sent : s.seconds_received);
    if (s.retransmits.known()) {
      retransmits += s.retransmits.value();
    } else if (unknown_retransmits == nullptr) {
      unknown_retransmits = &s;
    }
    sum.packets += s.packets;
    sum.lost += s.lost;
    sum.out_of_order += s.out_of_order;
    sum.jitter_seconds += s.jitter_seconds;
  }
  if (sum.streams > 0) sum.jitter_seconds /= sum.streams;
  if (unknown_retransmits != nullptr) {
    sum.retransmits = unknown_retransmits->retransmits;
  } else if (sum.streams > 0) {
    sum.retransmits = retransmits;
  } else {
    sum.retransmits = record::Measured<uint64_t>::Unknown(record::Missing::kAbsent, "no streams");
  }
  sum.bits_per_second = BitsPerSecond(static_cast<double>(sum.bytes), sum.seconds);
  if (sum.packets > 0) sum.lost_percent = 100.0 * sum.lost / sum.packets;
  if (sum.bytes > 0) {
    sum.slowest_share =
        static_cast<double>(sum.slowest_bytes) * sum.streams / static_cast<double>(sum.bytes);
  }
  return sum;
}

}  // namespace

EndSum SumSent(const std::vector<record::StreamTotals>& streams, StreamSet set) {
  return SumSide(streams, set, true);
}

EndSum SumReceived(const std::vector<record::StreamTotals>& streams, StreamSet set) {
  return SumSide(streams, set, false);
}

bool IsBidirectional(const record::RunRecord& run) {
  return run.spec.direction == record::Direction::kBidirectional;
}

}  // namespace nicbench::report
