// IntervalSampler: turns the cumulative per-flow counters of a DataPath (and each TCP socket's
// TCP_INFO) into the per-interval, per-stream records of a RunRecord, and into the per-stream
// totals at the end, with the omit (-O) warm-up handled as iperf3 does: intervals during the
// omit period are flagged `omitted`, counting restarts when it ends, and the times of the
// following intervals start again from 0.
//
// IntervalSchedule says when the boundaries fall. Both are pure arithmetic on the values they are
// given (times come from the caller's Clock), so tests drive them with made-up numbers.
// Thread safety: plain objects owned by one controller thread.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "base/clock.h"
#include "engine/datapath/data_path.h"
#include "record/run_record.h"

namespace nicbench::engine {

// When interval boundaries fall, measured from the moment the data starts (TEST_RUNNING).
// During the omit period: every `interval`, and the end of omit itself; after it: every
// `interval` counted from the end of omit. interval == 0 means no intermediate boundaries
// (only the end of omit).
class IntervalSchedule {
 public:
  IntervalSchedule(std::chrono::milliseconds interval, std::chrono::milliseconds omit)
      : interval_(interval), omit_(omit) {}
  // The first boundary strictly after `elapsed`; nullopt when none (interval 0 after omit).
  std::optional<std::chrono::milliseconds> NextAfter(std::chrono::milliseconds elapsed) const;

 private:
  std::chrono::milliseconds interval_, omit_;
};

// TCP_INFO per flow id, read by the controller at a boundary (absent for UDP).
using TcpInfoByFlow = std::map<int, record::Measured<record::TcpInfoSample>>;

// One flow's counts since the end of omit (or the start, without omit).
struct FlowTotals {
  int id = 0;
  bool sender = false;
  uint64_t bytes = 0;
  uint64_t packets = 0, lost = 0, out_of_order = 0;  // UDP (sender: packets sent)
  double jitter_seconds = 0;
  double seconds = 0;                    // measured duration after omit
  std::optional<uint64_t> retransmits;   // TCP with TCP_INFO
  std::optional<uint64_t> max_snd_cwnd;  // bytes
  std::optional<uint32_t> min_rtt_us, max_rtt_us;
  uint64_t rtt_sum_us = 0, rtt_samples = 0;  // sender: TCP_INFO rtt of each sample, and how many
  // Request/response flows (FlowCounters::rr), since the end of omit: rr_sampler.h sums them.
  bool rr = false;
  uint64_t transactions = 0, rr_lost = 0, rr_late = 0;
  std::shared_ptr<const LatencyHistogram> latency, connect_latency;
  std::shared_ptr<const LatencyHistogram> up_latency, down_latency;  // FlowConfig::rr_stamps
};

class IntervalSampler {
 public:
  // start: when the data started (TEST_RUNNING); omit: the warm-up to exclude.
  IntervalSampler(MonoTime start, std::chrono::milliseconds omit, record::Transport transport);

  // Closes the interval that ends at `now`. Returns the record (also kept in intervals()).
  // If now is the end of the omit period (or later, first call after it), counting restarts.
  // `keep` false: the counts go into the totals but the interval is not kept (a final sliver
  // shorter than a tenth of the interval, which iperf3 does not print either).
  const record::IntervalRecord* Close(MonoTime now, const std::vector<FlowCounters>& counters,
                                      const TcpInfoByFlow& tcp_info, bool keep = true) {
    return CloseAt(now, now, counters, tcp_info, keep);
  }
  // The same for a scheduled boundary `at` that the caller reached late, at `now` (>= at): the
  // interval ends at `at`, with each flow's counts interpolated linearly between the previous
  // snapshot and `now`; what moved after `at` goes to the next interval (or, at the end, is
  // left out, so a timed test's totals cover exactly its duration). A controller thread
  // woken late on a busy host (both ends' workers on two CPUs, --bidir) once printed
  // 1.00-2.33 2.33-3.00 and a total of 0.00-3.20 for -t 3. Request/response flows are not
  // interpolated (their latency histograms cannot be split): with one, the interval ends at
  // `now`. Event counts read from TCP_INFO (retransmits) stay where they were seen.
  const record::IntervalRecord* CloseAt(MonoTime at, MonoTime now,
                                        const std::vector<FlowCounters>& counters,
                                        const TcpInfoByFlow& tcp_info, bool keep = true);

  const std::vector<record::IntervalRecord>& intervals() const { return intervals_; }

  // Keeps at most `limit` intervals (0 = no limit): when a new one would exceed it, the kept
  // intervals after the omitted warm-up are merged in pairs first (record/merge.h), so a long
  // test keeps a bounded record whose intervals cover longer spans. The interval a Close
  // returns is never merged. HostObserver::SetKeepLimit with the same limit keeps the host
  // samples aligned with these.
  void SetKeepLimit(size_t limit) { keep_limit_ = limit; }
  // Each interval's request/response stats carry the whole latency distribution of the
  // interval (RrStats::latency_buckets), as a paced test's totals do: for a caller that pools
  // the live intervals of a span (the monitor's probes while a host event holds). Off by
  // default: the record of `run` keeps its intervals' summaries only.
  void SetIntervalBuckets(bool on) { interval_buckets_ = on; }
  std::vector<record::IntervalRecord> TakeIntervals() { return std::move(intervals_); }

  // Totals since the end of omit up to the last Close.
  std::vector<FlowTotals> Totals() const;
  // Seconds since the end of omit up to the last Close (the test's measured duration).
  double MeasuredSeconds() const;

 private:
  struct FlowState {
    FlowCounters last{};  // at the previous boundary
    FlowCounters base{};  // at the end of omit
    uint64_t last_retrans = 0, base_retrans = 0;
    bool have_retrans = false;
    FlowTotals totals;
    uint64_t rtt_sum_us = 0, rtt_samples = 0;
    uint64_t last_transactions = 0;  // at the previous boundary (last is already the new one)
  };

  double Seconds(MonoTime t) const { return std::chrono::duration<double>(t - start_).count(); }
  record::StreamInterval MakeStream(FlowState& state, const FlowCounters& now,
                                    const TcpInfoByFlow& tcp_info, bool omitted);
  void EndOmit(const std::vector<FlowCounters>& counters);
  // The counters at `at` (seconds since start), given those read at `now`.
  std::vector<FlowCounters> CountersAt(double at, double now,
                                       const std::vector<FlowCounters>& counters);

  MonoTime start_;
  std::chrono::milliseconds omit_;
  record::Transport transport_;
  bool omit_done_;
  double last_boundary_ = 0;  // seconds since start
  double last_snapshot_ = 0;  // seconds since start of the previous Close's `now`
  double omit_end_ = 0;       // seconds since start
  std::map<int, FlowState> flows_;
  std::map<int, FlowCounters> snapshots_;  // as read at the previous Close's `now`
  std::vector<record::IntervalRecord> intervals_;
  size_t keep_limit_ = 0;
  bool interval_buckets_ = false;
  size_t omitted_kept_ = 0;  // kept intervals of the omitted warm-up, never merged
};

}  // namespace nicbench::engine
