// The figures of `run --under-load` (docs/latency.md), from the record's UnderLoad (the probes
// of the idle and the loaded phase) and the load's own samples: latency idle and loaded, the
// latency the load added, responsiveness in round trips per minute as the IETF responsiveness
// draft computes it (a TCP adaptation: no TLS, no HTTP), and where the added delay sits, layer
// by layer, on both ends. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "record/measured.h"
#include "record/run_record.h"

namespace nicbench::analysis {

// One kind of probe over one phase, milliseconds.
struct ProbeLatency {
  uint64_t count = 0;
  record::Measured<double> p50_ms, p90_ms, p99_ms, max_ms;
  record::Measured<double> trimmed_mean_ms;  // the draft's TM: the top 5% left out
};

// The draft's single-sided trimmed mean: the mean of the values below the 95th percentile
// (the top 5% of the count left out, a bucket split where the cut falls in it). Unknown when
// empty.
record::Measured<double> TrimmedMeanMs(const std::vector<record::LatencyBucket>& buckets,
                                       double keep = 0.95);

// The nearest-rank value at `quantile` (0..1] of a probe distribution, milliseconds; unknown
// when empty. For the HTML report's quantile plot.
record::Measured<double> QuantileMs(const std::vector<record::LatencyBucket>& buckets,
                                    double quantile);

// The draft's confidence in a responsiveness figure: low when the phase had fewer than MAD (4)
// intervals, high when the moving averages (over MAD intervals) of the last MAD intervals are
// within 5% (SDT) of the latest, medium otherwise. ComputeUnderLoad judges the kept probe's
// TCP_INFO RTT per interval, or the load's own when no probe was answered.
enum class Confidence { kLow, kMedium, kHigh };
const char* ConfidenceName(Confidence c);  // "low", "medium", "high"
Confidence ConfidenceOf(const std::vector<double>& per_interval_rpm);

// Round trips per minute from a round trip in milliseconds.
double RoundTripsPerMinute(double round_trip_ms);

// The draft's TCP-only responsiveness: foreign = 60000 / ((TM(tcp_f) + TM(http_f)) / 2), loaded
// = 60000 / TM(http_l), responsiveness = their mean. Here tcp_f is the new-connection probe's
// connect time, http_f the kept-connection probe's transaction and http_l the load's own
// smoothed RTT from TCP_INFO (the draft's substitute where a request cannot ride the load).
struct Responsiveness {
  record::Measured<double> foreign_rpm, loaded_rpm, rpm;
};
Responsiveness ResponsivenessOf(const record::Measured<double>& tcp_f_ms,
                                const record::Measured<double>& http_f_ms,
                                const record::Measured<double>& http_l_ms);

// One layer's share of the added delay, on one end.
struct QueueDelay {
  std::string end;                 // "client", "server"
  std::string layer;               // "qdisc tbf", "device (BQL)", "sender's socket"
  record::Measured<double> bytes;  // mean backlog over the loaded phase's counted samples
  record::Measured<double> ms;     // the backlog at the rate it drains at
  record::Measured<double> drain_bits_per_second;
};

// One-way delay (docs/latency.md, "One-way delay"): the kept probe's requests (up: client to
// server) and responses (down), each corrected by the clocks' offset of its phase. Unknown, with
// the reason, when the server did not timestamp (a stock iperf3, an older nicbench).
struct OneWayFigures {
  ProbeLatency idle_up, idle_down, loaded_up, loaded_down;
  // Loaded minus idle trimmed mean, each direction; not clamped at 0 (noise can take a
  // direction the load left alone a little below).
  record::Measured<double> added_up_ms, added_down_ms;
  // What the clocks' offset may put into the added figures: 0 when both phases were corrected
  // with the same estimate (its error cancels in the difference), else the sum of the bounds.
  record::Measured<double> added_bound_ms;
  record::Measured<record::ClockOffset> idle_clock, loaded_clock;
};

// The one-way figures of a run's probes (part of ComputeUnderLoad).
OneWayFigures OneWayOf(const record::UnderLoad& u);

struct UnderLoadFigures {
  ProbeLatency idle_kept, loaded_kept;        // request/response on a kept connection
  ProbeLatency idle_connect, loaded_connect;  // the handshake of a new connection
  record::Measured<double> idle_rtt_ms;       // TCP_INFO of the idle kept probe, mean
  record::Measured<double> loaded_rtt_ms;     // the load's senders' TCP_INFO RTT, mean
  record::Measured<double> added_ms;          // loaded minus idle TM of the kept probe
  Responsiveness idle, loaded;                // RPM with no load and under it
  Confidence confidence = Confidence::kLow;
  std::vector<QueueDelay> queues;        // both ends, where measured
  record::Measured<double> beyond_ms;    // added delay no queue on either host explains
  record::Measured<double> probe_share;  // probe bytes / load bytes, 0..1
  std::string unknown_why;               // set when the probes were not answered
  OneWayFigures one_way;
};

// Unknown figures carry their reason; nullopt-like "all unknown" when the run has no probes.
UnderLoadFigures ComputeUnderLoad(const record::RunRecord& run);

}  // namespace nicbench::analysis
