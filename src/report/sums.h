// Sums over streams, shared by the JSON and text renderers so both print the same figures:
// one interval's [SUM] and the end-of-test totals, per direction. Internal to src/report.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "record/run_record.h"

namespace nicbench::report {

// Which streams a sum covers. In a bidirectional test iperf3 sums each direction apart:
// `sum` holds the streams this end sends on, `sum_bidir_reverse` the ones it receives on.
enum class StreamSet { kAll, kLocalSends, kLocalReceives };

bool InSet(StreamSet set, bool local_sends);

// The streams of one interval, summed.
struct IntervalSum {
  int streams = 0;
  double start = 0, end = 0;  // of the first stream in the set, as iperf3 does
  uint64_t bytes = 0;
  bool sender = false;  // of the first stream in the set
  bool omitted = false;
  uint64_t retransmits = 0;  // TCP senders
  uint64_t packets = 0, lost = 0, out_of_order = 0;
  double jitter_seconds = 0;  // mean over receiving streams
  std::optional<double> bits_per_second;
};

IntervalSum SumInterval(const record::IntervalRecord& interval, StreamSet set);

// The end-of-test totals of the streams in a set, one side (as sent or as received).
struct EndSum {
  int streams = 0;
  bool sender = false;
  double seconds = 0;  // the longest of the streams' durations
  uint64_t bytes = 0;
  record::Measured<uint64_t> retransmits;  // known only when every stream's count is
  uint64_t packets = 0, lost = 0, out_of_order = 0;
  double jitter_seconds = 0;  // mean over the streams
  std::optional<double> bits_per_second;
  std::optional<double> lost_percent;  // lost / packets * 100, when packets > 0
  // The stream that moved least (the first such in the set), so starvation shows among many:
  // slowest_share is its bytes over an even share (bytes / streams), 1 when every stream moved
  // the same, set when bytes > 0.
  int slowest_id = 0;
  uint64_t slowest_bytes = 0;
  std::optional<double> slowest_share;
};

// Whether a stream's sent (`sent`) or received side was measured: both after a results
// exchange, only this end's own side in an incomplete run.
bool SideKnown(const record::StreamTotals& s, bool sent);

// Only the streams whose side is known (SideKnown) are summed; `streams` is 0 when none is.
EndSum SumSent(const std::vector<record::StreamTotals>& streams, StreamSet set);
EndSum SumReceived(const std::vector<record::StreamTotals>& streams, StreamSet set);

// True when the test had streams in both directions (bidirectional).
bool IsBidirectional(const record::RunRecord& run);

}  // namespace nicbench::report
