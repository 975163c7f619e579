// The derived figures of one RunRecord, each computed once and with one unit: who sends in
// which direction, the host samples that count, goodput of each direction as the sender and
// the receiver saw it, what moving a gigabyte cost each end (cost.h),
// retransmits and mean RTT. diagnosis, compare and matrix read these; a figure that was not
// measured is unknown with a reason, never 0. Pure functions of the record; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cost.h"
#include "record/measured.h"
#include "record/run_record.h"

namespace nicbench::analysis {

Role RoleOf(const record::EndpointRecord& end);
const char* RoleName(Role role);  // "client" | "server"

// A host sample's length, seconds.
double SampleSeconds(const record::HostInterval& sample);

// Whether the end in `role` sends, receives or both in a test going `direction`.
struct Duty {
  bool sends = false;
  bool receives = false;
};
Duty DutyOf(Role role, record::Direction direction);

// The one rule for what counts of a test's time: a stretch [start, end) counts when it ends past
// the omitted warm-up and is at least a quarter of the requested interval long (a short
// remainder at the end of a test is noise). Host samples and per-interval goodput both use it.
bool Counts(const record::RunRecord& run, double start, double end);

// The host samples of `end` that count (Counts).
std::vector<const record::HostInterval*> CountedSamples(const record::RunRecord& run,
                                                        const record::EndpointRecord& end);

// The one rule for a mean RTT: the sending streams' smoothed RTT (TCP_INFO rtt, microseconds),
// mean over the counted intervals (past the omitted warm-up) and the streams, samples without an
// estimate yet (0) left out. `intervals`: one sending end's. RunFigures::mean_rtt_us pools both
// senders' samples by the same rule; diagnosis's per-flow RTT is this of the flow's sender.
record::Measured<double> SenderMeanRttUs(const std::vector<record::IntervalRecord>& intervals);

// Goodput of each counted interval (Counts) of the run's intervals in the direction the local
// end sends (`local_sends`) or receives, bits per second, in time order.
std::vector<double> IntervalBitsPerSecond(const record::RunRecord& run, bool local_sends);

// One direction of data, from the record's stream totals.
struct DirectionTotals {
  int streams = 0;
  uint64_t bytes_sent = 0, bytes_received = 0;  // the sender's and the receiver's counts
  double seconds_sent = 0, seconds_received = 0;
  double seconds = 0;  // the longer of the two, or the test's when neither is known
  std::optional<uint64_t> retransmits;  // summed; unset when any stream lacks it
  uint64_t udp_packets = 0, udp_lost = 0;
};
// `local_sends`: the direction the record's local end sends in.
DirectionTotals TotalsOf(const record::RunRecord& run, bool local_sends);
// Goodput as the receiver counted it (the sender's count when the receiver's is missing),
// over DirectionTotals::seconds. 0 when no time passed.
double ReceiverBitsPerSecond(const DirectionTotals& totals);

// The figures compare and matrix show, for one run.
struct DirectionFigures {
  record::Measured<double> sender_bits_per_second;    // bytes the sender wrote / its seconds
  record::Measured<double> receiver_bits_per_second;  // bytes the receiver read / its seconds
};
// A request/response test's figures (docs/rr.md), from the record's RrSummary; all unknown for
// a bulk test. Latency and connect times in microseconds over the whole test (the client times
// them: unknown in a server's record); lost and late only for UDP; CPU time per transaction in
// microseconds, of each end's nicbench process and of its whole host.
struct RrFigures {
  record::Measured<double> transactions_per_second;
  record::Measured<double> latency_p50_us, latency_p90_us, latency_p99_us, latency_p999_us,
      latency_max_us, latency_mean_us;
  record::Measured<double> connect_p50_us, connect_p99_us;  // CRR only
  record::Measured<double> lost, late;                      // UDP only, transactions
  record::Measured<double> client_process_us_per_transaction, server_process_us_per_transaction;
  record::Measured<double> client_host_us_per_transaction, server_host_us_per_transaction;
};
RrFigures ComputeRrFigures(const record::RunRecord& run);

// A request/response test's service demand (docs/rr.md), CPU time per transaction in
// microseconds: of each end's nicbench process (its CPU share of the test's seconds) and of each
// whole host (every core's busy time over the intervals past the warm-up, from the host samples
// aligned with them), per transaction the record's end completed. Computed here from the raw
// counts the engine records; a record written when the engine computed them carries them in its
// RrSummary (`*_us_per_transaction`), and those are taken as they are. The remote figures come
// from a client's record only, as they always did: a server's record shows its own end. nullopt
// where not measured, and all of them for a bulk test.
struct RrServiceDemand {
  std::optional<double> local_process_us, remote_process_us, local_host_us, remote_host_us;
};
RrServiceDemand ComputeRrServiceDemand(const record::RunRecord& run);

// The record's RrSummary with the service demand filled in (ComputeRrServiceDemand), as -J's
// `end.rr` shows it. REQUIRES: run.rr.
record::RrSummary RrSummaryWithDemand(const record::RunRecord& run);

struct RunFigures {
  DirectionFigures client_to_server, server_to_client;
  EndCost client, server;                // cost.h
  record::Measured<double> retransmits;  // TCP segments over all sending streams, count
  record::Measured<double> mean_rtt_us;  // the senders' smoothed RTT, mean over counted
                                         // intervals and streams, microseconds
  RrFigures rr;                          // request/response tests
};
RunFigures ComputeFigures(const record::RunRecord& run);

// The end of `run` in `role`: the local one, the remote one, or null when the peer did not
// report (a stock iperf3 end).
const record::EndpointRecord* EndIn(const record::RunRecord& run, Role role);

// Bits per second that moved through the end in `role` (what it sent plus what it received,
// at the receivers' counts), 0 when nothing moved.
double EndBitsPerSecond(const record::RunRecord& run, Role role);

// Mean number of busy cores (sum of busy shares / 100) over the counted samples, weighted by
// their length; nullopt without per-CPU shares.
std::optional<double> BusyCores(const record::RunRecord& run, const record::EndpointRecord& end);

// The NIC's IRQ lines over the counted samples that carry them: total interrupts and the
// seconds sampled, by CPU and by line, with each CPU's busy and idle shares summed over those of
// the samples that also carry per-CPU shares.
struct NicInterrupts {
  uint64_t total = 0;
  double seconds = 0;
  std::vector<uint64_t> per_cpu;             // summed over the lines and samples
  std::map<std::string, uint64_t> per_line;  // "eth0-TxRx-0 (irq 45)" -> count
  std::vector<double> busy_sum, idle_sum;    // percent, per CPU, summed over cpu_samples
  int cpu_samples = 0;
};
NicInterrupts CountNicInterrupts(const record::RunRecord& run, const record::EndpointRecord& end);

// A NIC that is software (loopback, veth, tun, bridge, dummy): its "speed" is not a wire and
// it has no IRQ lines of its own.
bool IsSoftwareNic(const record::NicFacts& nic);

}  // namespace nicbench::analysis
