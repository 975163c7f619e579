// Internal to diagnosis: a read-only view of a RunRecord in the terms the rules speak: the two
// ends (which one sends, which one receives), the flows of data between them with their
// goodput, and the samples that count (omitted warm-up excluded). Borrows the record; the view
// must not outlive it. Thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "record/run_record.h"

namespace nicbench::diagnosis {

// One end of the test.
struct End {
  const record::EndpointRecord* record = nullptr;
  bool local = false;
  bool client = false;
  bool sends = false;
  bool receives = false;
  // "local client (sender)", "remote server (receiver)", "local client (sender+receiver)".
  std::string name;
};

// TCP_INFO of the sender's sockets at the end of the last counted interval, summed over
// streams (times); the RTT is analysis::SenderMeanRttUs, over every counted interval.
struct SenderTcp {
  uint64_t busy_us = 0, rwnd_limited_us = 0, sndbuf_limited_us = 0;
  uint32_t snd_mss = 0;
  double mean_rtt_us = 0;  // 0 when unknown
  uint32_t snd_wnd = 0;    // smallest advertised window seen among the streams, 0 = unknown
  // Over the counted intervals (after omit), summed over the streams: segments the receiver got
  // twice (DSACK), i.e. needless retransmissions, and reordering events the sender detected.
  uint64_t dsack_dups = 0, reord_seen = 0;
  uint32_t reordering = 0;  // largest current reordering degree among the streams
};

// One direction of data: from `sender` to `receiver`.
struct Flow {
  const End* sender = nullptr;
  const End* receiver = nullptr;
  bool local_sends = false;
  int streams = 0;
  uint64_t bytes_sent = 0, bytes_received = 0;
  double seconds = 0;
  double bits_per_second = 0;           // goodput at the receiver
  std::optional<uint64_t> retransmits;  // summed over streams; unset when any stream lacks it
  uint64_t udp_packets = 0, udp_lost = 0;
  std::optional<SenderTcp> tcp;  // unset when the sender's TCP_INFO is not in the record
  // Goodput per counted interval, from the local end's per-interval view.
  std::vector<double> interval_bits_per_second;
};

class RunView {
 public:
  explicit RunView(const record::RunRecord& run);

  const record::RunRecord& run() const { return run_; }
  const End& local() const { return local_; }
  // Null when the peer did not report (a stock iperf3 end).
  const End* remote() const { return remote_ ? &*remote_ : nullptr; }
  std::vector<const End*> ends() const;
  const std::vector<Flow>& flows() const { return flows_; }
  bool tcp() const { return run_.spec.transport == record::Transport::kTcp; }
  bool ipv6() const;

  // Samples of an end that count: not in the omitted warm-up, and long enough to mean
  // something (at least a quarter of the requested interval).
  std::vector<const record::HostInterval*> Samples(const End& end) const;

  // True when no physical link is involved: loopback, or a software device (veth, ...) with
  // no shaping qdisc. Such a transfer is bounded by CPU by nature.
  bool UnshapedSoftwarePath() const;
  // True when both ends report one machine (same hostname and CPU count): stand namespaces
  // share /proc/stat, so their CPU samples are the same cores seen twice.
  bool SharedHost() const;
  // Host-wide counters both ends read alike on one host (issue 27: one drop was blamed on both
  // ends): softnet_stat is the machine's (every network namespace sees it), /proc/net/snmp a
  // network namespace's, which two loopback ends share. Such a counter is judged once, from
  // the local end's samples, and named by SharedPlace.
  bool SharedSoftnet() const { return SharedHost(); }
  bool SharedProtocolCounters() const;
  // Where a counter read once on a shared host points: the one end on its side (the receiver
  // of a receive buffer's drops, `receive_side`), else the host both ends run on.
  std::string SharedPlace(bool receive_side) const;
  // "host alpha (both ends)".
  std::string HostPlace() const;

 private:
  void BuildFlows();
  Flow MakeFlow(bool local_sends) const;

  const record::RunRecord& run_;
  End local_;
  std::optional<End> remote_;
  std::vector<Flow> flows_;
};

// A NIC that is software (loopback, veth, tun, bridge, dummy): its "speed" is not a wire.
bool IsSoftwareNic(const record::NicFacts& nic);
// The shaping rate of the NIC's root qdisc, 0 when unknown or not shaping.
uint64_t QdiscRate(const record::NicFacts& nic);
// "local client (sender) to remote server (receiver)".
std::string FlowName(const Flow& flow);
// "0-1 s" style interval text for evidence lines.
std::string IntervalText(double start, double end);
// Mean and coefficient of variation (stddev / mean); cv is 0 when the mean is 0.
double Mean(const std::vector<double>& values);
double CoefficientOfVariation(const std::vector<double>& values);

}  // namespace nicbench::diagnosis
