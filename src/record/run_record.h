// RunRecord: everything one test produced, built first and rendered after. Its JSON form keeps
// iperf3's top-level shape (start / intervals / end) so iperf3 -J parsers read it; what iperf3
// lacks (both ends' host samples and facts, findings) lives beside it. Plain values; the engine
// builds one per test, diagnosis appends findings, report renders, store keeps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "record/facts.h"
#include "record/file_record.h"
#include "record/host_sample.h"
#include "record/measured.h"
#include "record/test_spec.h"

namespace nicbench::record {

// TCP_INFO of one socket at the end of an interval (Linux struct tcp_info).
struct TcpInfoSample {
  uint32_t rtt_us = 0, rttvar_us = 0;
  uint32_t snd_cwnd = 0;  // segments
  uint32_t snd_mss = 0;
  uint32_t pmtu = 0;
  uint64_t total_retrans = 0;  // cumulative retransmitted segments on this socket
  uint64_t pacing_rate_bytes_per_second = 0;
  uint64_t delivery_rate_bytes_per_second = 0;
  uint64_t busy_time_us = 0, rwnd_limited_us = 0, sndbuf_limited_us = 0;  // cumulative
  uint32_t snd_wnd = 0;  // peer's advertised window, bytes (kernel >= 5.4? else 0)
  // Reordering (kernel >= 4.19, else 0): the current reordering degree in segments, and the
  // cumulative counts of reordering events seen and of segments the receiver reported getting
  // twice (DSACK), i.e. retransmissions that were not needed.
  uint32_t reordering = 0;
  uint32_t reord_seen = 0;
  uint32_t dsack_dups = 0;
  // The sender's own queue at the sample: bytes written and not yet sent (tcpi_notsent_bytes,
  // kernel >= 4.6) and segments sent and not yet acknowledged (tcpi_unacked).
  uint32_t notsent_bytes = 0;
  uint32_t unacked = 0;
};

// Transaction times of a request/response test (docs/rr.md), from a log-linear histogram whose
// percentiles are within 1% of the exact ones; microseconds.
// One bucket of a latency histogram: its midpoint and how many values fell in it.
struct LatencyBucket {
  double us = 0;
  uint64_t count = 0;
};

struct LatencySummary {
  uint64_t count = 0;
  double mean_us = 0, min_us = 0, p50_us = 0, p90_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
};

// A request/response test over one interval or the whole test, from one end's point of view:
// the client completes transactions (and times them), the server answers them.
// Raw counts only: the rate is TransactionsPerSecond's (below), so every reader gets one answer.
struct RrStats {
  uint64_t transactions = 0;
  // The seconds the transactions were counted over: the interval's, or the test's (the
  // omitted warm-up left out). JSON: a record written before it was kept carries
  // `transactions_per_second` instead, from which reading derives it (json.cc).
  double seconds = 0;
  uint64_t lost = 0;  // UDP: requests without a response within --rr-timeout
  uint64_t late = 0;  // UDP: responses that came after their request was counted lost
  std::optional<LatencySummary> latency;  // client: request queued to response read
  std::optional<LatencySummary> connect;  // CRR client: connect(2) to the connection's writability
  // A paced test's totals (--rr-rate, a probe): the whole distribution, non-empty buckets in
  // ascending order, for figures a summary cannot give (the trimmed mean, docs/latency.md).
  std::optional<std::vector<LatencyBucket>> latency_buckets, connect_buckets;
  // A kept probe whose server timestamped its responses (ClockOffset): each transaction's
  // one-way delays, request (up: client to server) and response (down), corrected by the
  // clocks' offset; negative values (within the offset's bound) count as 0. Whole
  // distributions, as latency_buckets.
  std::optional<LatencySummary> up, down;
  std::optional<std::vector<LatencyBucket>> up_buckets, down_buckets;
};

// Transactions per second over `stats.seconds`; 0 when no time was counted. The one rule of the
// rate, which JSON's `transactions_per_second`, the reports and the figures all read.
inline double TransactionsPerSecond(const RrStats& stats) {
  return stats.seconds > 0 ? static_cast<double>(stats.transactions) / stats.seconds : 0;
}

// The offset of the server's clock (CLOCK_REALTIME) from the client's, estimated over the
// control connection from four-timestamp exchanges (protocol/clock_exchange.h): the true offset
// lies within offset_us +- bound_us, provided neither one-way trip of the kept exchanges took
// less than nothing. `carried`: the estimate came from an earlier test of the same run (the idle
// phase's, taken on an idle path) because its bound was the smaller.
struct ClockOffset {
  double offset_us = 0;  // server clock minus client clock
  double bound_us = 0;   // half the kept exchanges' round trip (their intersection)
  uint32_t exchanges = 0, kept = 0;
  bool carried = false;
};

// The whole test's figures (client's record; the server's own record has `local` only).
struct RrSummary {
  RrStats local;
  std::optional<uint64_t> peer_transactions;  // what the other end counted
  // Service demand, CPU time per transaction in microseconds: of each end's nicbench process
  // (rusage), and of each whole host (busy time of every core from /proc/stat, as netperf
  // reports it). Written by the engine of older versions only, and read back from their records:
  // a new record leaves them absent and analysis::ComputeRrServiceDemand computes them from the
  // CPU times and host samples (and fills them in for -J's `end.rr`).
  std::optional<double> local_process_us_per_transaction, remote_process_us_per_transaction;
  std::optional<double> local_host_us_per_transaction, remote_host_us_per_transaction;
  // The clocks' offset the one-way delays (RrStats::up, down) were corrected with; absent when
  // the test had none (not asked for, or a server that does not timestamp).
  std::optional<ClockOffset> clock;
};

// ---- run --under-load (docs/latency.md): the foreign probes of an idle phase and of the
// loaded phase. The load's own figures (its intervals, TCP_INFO RTT and queues, both ends'
// queue samples) are the run record's; analysis/under_load.h derives the latency figures and
// responsiveness from both.

// The probes of one phase: request/response transactions at a low rate on a connection of
// their own kept open (`kept`), and on a new connection each (`fresh`: its connect times are
// the handshakes), each unknown with the reason when the peer cannot answer them.
struct ProbePhase {
  double seconds = 0;
  Measured<RrStats> kept;
  Measured<RrStats> fresh;
  uint64_t probe_bytes = 0;  // both probes' bytes, both ways (requests and responses)
  // The kept probe's own TCP_INFO RTT at each of its intervals (idle: the path's base RTT as
  // the kernel sees it on an idle connection).
  std::vector<uint32_t> kept_rtt_us;
  // The clocks' offset the kept probe's one-way delays (kept.up, kept.down) were corrected
  // with; unknown with the reason when there are none (a stock iperf3 or an older nicbench
  // server, which do not timestamp).
  Measured<ClockOffset> clock;
};

struct UnderLoad {
  uint32_t probe_rate_per_second = 0;  // both probes together
  ProbePhase idle, loaded;
};

// One stream over one interval, from one end's point of view.
struct StreamInterval {
  int id = 0;                 // iperf3 numbering: 1, 3, 4, 5, ...
  bool sender = false;        // this end sends on this stream
  double start = 0, end = 0;  // seconds since the test started
  uint64_t bytes = 0;
  bool omitted = false;
  uint64_t retransmits = 0;          // TCP sender: delta of total_retrans in the interval
  Measured<TcpInfoSample> tcp_info;  // TCP sockets
  // UDP receiver side:
  uint64_t packets = 0, lost = 0, out_of_order = 0;
  double jitter_seconds = 0;
  uint64_t transactions = 0;  // request/response tests
  double BitsPerSecond() const { return end > start ? bytes * 8.0 / (end - start) : 0.0; }
};

struct IntervalRecord {
  double start = 0, end = 0;
  bool omitted = false;
  std::vector<StreamInterval> streams;
  std::optional<RrStats> rr;  // request/response tests: every flow of the interval together
};

// A stream's totals at the end of the test (omit period excluded).
struct StreamTotals {
  int id = 0;
  bool sender = false;                          // from the local end's point of view
  uint64_t bytes_sent = 0, bytes_received = 0;  // sender's and receiver's counts
  // False when the test ended before the results exchange: only this end's side (what it sent
  // or received) was measured, and the peer's side is unknown, never 0.
  bool peer_reported = true;
  double seconds_sent = 0, seconds_received = 0;
  Measured<uint64_t> retransmits;  // TCP sender only
  // UDP:
  uint64_t packets = 0, lost = 0, out_of_order = 0;
  double jitter_seconds = 0;
  // TCP sender, over the intervals:
  // max_snd_cwnd is in bytes (TCP_INFO's segments times the MSS), as iperf3 reports it.
  Measured<uint64_t> max_snd_cwnd;
  Measured<uint32_t> min_rtt_us, max_rtt_us;
  // The smoothed RTT (TCP_INFO rtt, microseconds) of every sample past the warm-up, summed, and
  // how many there were: analysis::StreamSenderTcp's mean RTT is the one from them.
  uint64_t rtt_sum_us = 0, rtt_samples = 0;
  // That mean as older versions recorded it; new records leave it unknown.
  Measured<uint32_t> mean_rtt_us;
};

// CPU use of the nicbench (or iperf3) process over the whole test, as iperf3 reports it.
struct CpuUtilization {
  double total_percent = 0, user_percent = 0, system_percent = 0;
};

// Which end of the test a record describes: who connected (client) and who accepted (server).
enum class Role { kClient, kServer };

// What one end of the test saw and was.
struct EndpointRecord {
  Role role = Role::kClient;
  std::string software;  // "nicbench 0.1.0", "iperf 3.12"
  HostFacts host;
  NicFacts nic;
  std::vector<HostInterval> samples;      // same boundaries as intervals
  std::vector<IntervalRecord> intervals;  // this end's per-stream view
  Measured<CpuUtilization> cpu;
  std::string congestion_used;
  std::optional<FileRecord> file;  // -F: this end read or wrote a file
  // The data path's worker threads at this end (each polls under --rr-spin); 0 = not reported
  // (a peer older than the member, or an end that never started its data path).
  int worker_threads = 0;
};

enum class Severity { kInfo, kNotice, kWarning, kCritical };

// A diagnosis finding: what the measurements of both ends mean.
struct Finding {
  std::string id;  // stable: "link-rate-limited", "receiver-cpu-bound", ...
  Severity severity = Severity::kInfo;
  std::string title;                  // one line
  std::vector<std::string> evidence;  // numbers and where they came from (end, interval)
  std::string meaning;
  std::string next_step;
};

// What any peer, nicbench or a stock iperf3, sent in its results beside our extension.
struct PeerReport {
  Measured<CpuUtilization> cpu = Measured<CpuUtilization>::Unknown(
      Missing::kNotReported, "the test did not reach the results exchange");
  std::string congestion_used;                    // "" = the peer did not say
  std::optional<std::string> server_output_text;  // --get-server-output from a text-mode server
  std::optional<std::string> server_output_json;  // the same from a -J server (JSON text)
};

struct ConnectionInfo {
  std::string local_host, remote_host;
  uint16_t local_port = 0, remote_port = 0;
};

struct RunRecord {
  std::string version;  // nicbench version that made the record
  int schema_version = 1;
  std::string timestamp;  // RFC 3339 UTC, start of the test
  int64_t timestamp_secs = 0;
  std::string cookie;
  TestSpec spec;
  std::string server_host;  // as the user named it
  uint16_t server_port = 0;
  std::vector<ConnectionInfo> connections;  // control first, then data streams
  // SO_SNDBUF / SO_RCVBUF of the first data socket right after it connected (iperf3's
  // start.sndbuf_actual / rcvbuf_actual; the kernel reports twice what -w asked for).
  uint32_t sndbuf_actual = 0, rcvbuf_actual = 0;
  // TCP_MAXSEG of the client's control connection just after the cookie went out, what iperf3
  // reports as start.tcp_mss_default (iperf_connect in iperf_api.c reads it there; on loopback
  // 3.12 says 32768, where a data stream's TCP_INFO says 65483 once the window has grown).
  // 0: not read (a server's record, an older record).
  uint32_t control_mss_bytes = 0;
  std::string label;  // free text: stand profile, experiment variant
  std::optional<std::string> stand_profile;

  EndpointRecord local;                   // the end that made this record
  Measured<EndpointRecord> remote;        // the peer's view; kNotReported for a stock iperf3 peer
  PeerReport peer;                        // from the peer's results, whoever the peer is
  std::vector<IntervalRecord> intervals;  // local view, iperf3-shaped
  std::vector<StreamTotals> streams;
  double test_seconds = 0;  // measured duration after omit
  std::vector<Finding> findings;
  std::optional<std::string> error;  // set when the test failed
  // The test failed or was interrupted after data had moved: intervals and streams hold what
  // was measured up to the failure (streams with peer_reported false).
  bool incomplete = false;
  std::optional<RrSummary> rr;          // request/response tests (spec.rr)
  std::optional<UnderLoad> under_load;  // run --under-load: the probes beside the test
};

}  // namespace nicbench::record
