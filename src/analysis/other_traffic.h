// Whether an end's packet-work figures are the test's own, measured over its counted samples:
// - its network namespace: the IP bytes it moved (/proc/net/netstat IpExt InOctets + OutOctets,
//   kept per namespace) against the bytes the test moved through that end;
// - its host, in bytes: the IP bytes every network namespace of the host moved (the samples'
//   host_ip_bytes, probes/namespace_bytes.h) against those of the test's namespaces (this end's,
//   and the peer's when it is another namespace of the same host, as on the stand);
// - its host, in packets: the packets every CPU received (/proc/net/softnet_stat "processed",
//   counted once per packet in __netif_receive_skb_core for every namespace) against the
//   packets the test's namespaces received (/proc/net/snmp Ip.InReceives).
// The bytes catch a neighbour whose packets are few and large (64 KB GSO packets against a test
// without TSO, whose 1500-byte packets outnumber them); the packets still catch a neighbour of
// many small packets, whose bytes are few but whose softirq work is per packet, and stand in
// alone for a record or a host without the host-wide bytes (an older peer, /proc with hidepid).
// On a host that also carries other traffic, the softirq and interrupt time of the flow cores
// is partly the other traffic's, and a CPU-per-GB figure built on it varies run to run with that
// traffic, not with the setting under test: compare and matrix then leave such a figure out of
// their test (cost.h EndCost::polluted).
//
// Limits: the counters count IPv4 only, so an IPv6 test is unknown here. Pure; thread-safe.
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
  // The IP bytes of the test's namespaces, and of every namespace of the host over the same
  // samples; host_bytes is unknown with the reason where the host-wide read was not possible
  // (/proc hides processes) or the record has none (an older peer or record).
  double test_namespaces_bytes = 0;
  record::Measured<double> host_bytes;
  double host_byte_share = 0;  // of host_bytes not the test's namespaces', 0..1
};

// Above this share of other traffic in its namespace's bytes, the end's packet work is called
// polluted.
inline constexpr double kPollutedShare = 0.25;
// The host-wide packet measure counts a packet once per device that receives it: a packet
// through a bridge (a hypervisor's br0 over eth0, a stand of more than two hosts) or a VLAN
// counts two or three times against one Ip.InReceives, a share of 50-67% that is not other
// traffic. Only a share above this, other traffic at least three times the test's own, is
// called polluted.
inline constexpr double kPollutedHostShare = 0.75;
// The host-wide byte measure counts a byte once per namespace whose IP layer handles it: a
// bridge, a VLAN or a veth between namespaces is below IP and counts nothing, so the stand's
// own traffic is 100% the test's. What counts the test's bytes again is an IP hop inside the
// host: a container behind NAT or a router namespace adds the bytes twice more (in and out), a
// share of 67% for one end in a container (50% on a stand with a router between its two
// namespaces) that is not other traffic; so is a stock iperf3 peer in another namespace of the
// same host, which reports no record to be recognised by (50%). Above this share, other traffic
// is more than the test's own even after one such hop (at least three times it without one).
inline constexpr double kPollutedHostByteShare = 0.75;

// The other traffic of `end` (one of `run`'s ends, in `role`) over its counted samples; unknown
// with a reason without netstat counters, without data moved, or when the namespace counted
// less than half of the test's own bytes (IPv6, or counters that do not cover the test).
record::Measured<OtherTraffic> OtherTrafficOf(const record::RunRecord& run,
                                              const record::EndpointRecord& end, record::Role role);

// "41% of the IP bytes of this end's network namespace over the test were other traffic (1.2 GB
// of 2.9 GB)", or the host's bytes likewise, or its packets, the first whose share is above its
// threshold (kPollutedShare, kPollutedHostByteShare, kPollutedHostShare); "" when none is or the
// measure is unknown.
std::string PollutionEvidence(const record::Measured<OtherTraffic>& other);

}  // namespace nicbench::analysis
