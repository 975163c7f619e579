// Whether an end's packet-work figures are the test's own: the IP bytes its network namespace
// moved over the counted samples (/proc/net/netstat IpExt InOctets + OutOctets, which the kernel
// keeps per namespace) against the bytes the test moved through that end. On a host that also
// carries other traffic, the softirq and interrupt time of the flow cores is partly the other
// traffic's, and a CPU-per-GB figure built on it varies run to run with that traffic, not with the
// setting under test: compare and matrix then leave such a figure out of their test (cost.h
// EndCost::polluted).
//
// Limits: IpExt counts IPv4 only (an IPv6 test is unknown here), and traffic in another network
// namespace of the same host (a container, another stand host) is not seen, although its softirq
// time lands on the same cores. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "record/measured.h"
#include "record/run_record.h"

namespace nicbench::analysis {

struct OtherTraffic {
  double own_bytes = 0;   // the test's bytes as IP bytes of this namespace, header allowance in
  double host_bytes = 0;  // IpExt InOctets + OutOctets over the same samples
  // Share of host_bytes that was not the test's, 0..1.
  double fraction = 0;
};

// Above this share of other traffic, the end's packet work is called polluted.
inline constexpr double kPollutedShare = 0.25;

// The other traffic of `end` (one of `run`'s ends, in `role`) over its counted samples; unknown
// with a reason without netstat counters, without data moved, or when the namespace counted
// less than half of the test's own bytes (IPv6, or counters that do not cover the test).
record::Measured<OtherTraffic> OtherTrafficOf(const record::RunRecord& run,
                                              const record::EndpointRecord& end, record::Role role);

// "41% of the IP bytes of this end's network namespace over the test were other traffic (1.2 GB
// of 2.9 GB)", or "" when the share is at most kPollutedShare or unknown.
std::string PollutionEvidence(const record::Measured<OtherTraffic>& other);

}  // namespace nicbench::analysis
