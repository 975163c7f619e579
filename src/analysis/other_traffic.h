// Whether an end's packet-work figures are the test's own, measured two ways over its counted
// samples: the IP bytes its network namespace moved (/proc/net/netstat IpExt InOctets +
// OutOctets, kept per namespace) against the bytes the test moved through that end; and the
// packets every CPU of the host received (/proc/net/softnet_stat "processed", counted once per
// packet in __netif_receive_skb_core for every namespace) against the packets the namespaces of
// the test's ends received (/proc/net/snmp Ip.InReceives, the peer's too when it is another
// namespace of the same host, as on the stand). On a host that also
// carries other traffic, the softirq and interrupt time of the flow cores is partly the other
// traffic's, and a CPU-per-GB figure built on it varies run to run with that traffic, not with the
// setting under test: compare and matrix then leave such a figure out of their test (cost.h
// EndCost::polluted).
//
// Limits: both counters count IPv4 only, so an IPv6 test is unknown here. Pure; thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "record/measured.h"
#include "record/run_record.h"

namespace nicbench::analysis {

struct OtherTraffic {
  double own_bytes = 0;        // the test's bytes as IP bytes of this namespace, headers in
  double namespace_bytes = 0;  // IpExt InOctets + OutOctets over the same samples
  double namespace_share = 0;  // of namespace_bytes not the test's, 0..1
  // Packets the test's namespaces received and every packet the host received; unset without
  // softnet counts.
  std::optional<double> own_packets, host_packets;
  double host_share = 0;  // of host_packets not the test's namespaces', 0..1
};

// Above this share of other traffic in its namespace's bytes, the end's packet work is called
// polluted.
inline constexpr double kPollutedShare = 0.25;
// The host-wide measure counts a packet once per device that receives it: a packet through a
// bridge (a hypervisor's br0 over eth0, a stand of more than two hosts) or a VLAN counts two or
// three times against one Ip.InReceives, a share of 50-67% that is not other traffic. Only a
// share above this, other traffic at least three times the test's own, is called polluted.
inline constexpr double kPollutedHostShare = 0.75;

// The other traffic of `end` (one of `run`'s ends, in `role`) over its counted samples; unknown
// with a reason without netstat counters, without data moved, or when the namespace counted
// less than half of the test's own bytes (IPv6, or counters that do not cover the test).
record::Measured<OtherTraffic> OtherTrafficOf(const record::RunRecord& run,
                                              const record::EndpointRecord& end, record::Role role);

// "41% of the IP bytes of this end's network namespace over the test were other traffic (1.2 GB
// of 2.9 GB)", or the host's packets likewise, or "" when neither share is above its threshold
// (kPollutedShare, kPollutedHostShare) or the measure is unknown.
std::string PollutionEvidence(const record::Measured<OtherTraffic>& other);

}  // namespace nicbench::analysis
