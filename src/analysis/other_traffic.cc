// Other traffic beside the test (other_traffic.h).
#include "analysis/other_traffic.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "analysis/cost.h"
#include "analysis/figures.h"

namespace nicbench::analysis {
namespace {

using record::Measured;
using record::Missing;

// IP and TCP headers with timestamps are 52 bytes a segment, about 3.6% at a 1448-byte MSS, and
// the receiver's ACKs (one per two segments) add about 1.8% in the other direction: 10% covers
// both with room for retransmissions.
constexpr double kTcpHeaderAllowance = 0.10;
// A UDP datagram carries 28 bytes of IPv4 and UDP header; with a block size of 0 the datagrams
// fill the path's MTU.
constexpr double kUdpHeaderBytes = 28, kUdpDefaultPayload = 1400;

double HeaderAllowance(const record::TestSpec& spec) {
  if (spec.transport != record::Transport::kUdp) return kTcpHeaderAllowance;
  const double payload = spec.block_bytes > 0 ? spec.block_bytes : kUdpDefaultPayload;
  return kUdpHeaderBytes / payload + 0.02;
}

struct Window {
  double seconds = 0;
  double octets = 0;
  bool counted = false;  // some sample had the IpExt counters
  double received = 0;   // Ip.InReceives
  double processed = 0;  // softnet "processed", every CPU
  bool softnet = true;   // every sample had softnet counts
  // Every namespace of the host (host_ip_bytes): unknown from the first sample without it.
  Measured<double> host_bytes = 0.0;
};

double Counter(const std::map<std::string, int64_t>& counters, const char* key, bool* found) {
  const auto it = counters.find(key);
  if (it == counters.end()) return 0;
  if (found != nullptr) *found = true;
  return static_cast<double>(std::max<int64_t>(it->second, 0));
}

void AddHostBytes(const record::HostInterval& s, Measured<double>& sum) {
  if (!sum.known()) return;
  if (const uint64_t* bytes = s.host_ip_bytes.get()) {
    sum.value() += static_cast<double>(*bytes);
  } else {
    sum = Measured<double>::Unknown(s.host_ip_bytes.why(), s.host_ip_bytes.detail());
  }
}

Window Sum(const record::RunRecord& run, const record::EndpointRecord& end) {
  Window w;
  for (const record::HostInterval* s : CountedSamples(run, end)) {
    const auto* counters = s->net_counters.get();
    if (counters == nullptr) continue;
    w.seconds += SampleSeconds(*s);
    w.octets += Counter(*counters, "IpExt.InOctets", &w.counted) +
                Counter(*counters, "IpExt.OutOctets", &w.counted);
    w.received += Counter(*counters, "Ip.InReceives", nullptr);
    AddHostBytes(*s, w.host_bytes);
    const auto* softnet = s->softnet.get();
    w.softnet = w.softnet && softnet != nullptr;
    if (softnet == nullptr) continue;
    for (const record::SoftnetDelta& cpu : *softnet) w.processed += cpu.processed;
  }
  return w;
}

// On loopback both ends share the end's namespace: every byte leaves one end and enters the
// other there, and one Ip.InReceives counts both ends' packets.
bool PeerSharesTheNamespace(const record::EndpointRecord& end) {
  return end.nic.loopback || end.nic.interface == "lo";
}

// The peer's counters when its namespace is another of this host (the stand), so the host's
// counts hold its traffic as the test's too; none on loopback, where both ends share one
// namespace and its counters, nor when the peer is another machine.
std::optional<Window> PeerNamespace(const record::RunRecord& run,
                                    const record::EndpointRecord& end) {
  const record::EndpointRecord* peer = SharedPeer(run, end);
  if (peer == nullptr || PeerSharesTheNamespace(end)) return std::nullopt;
  return Sum(run, *peer);
}

// The host-wide packet measure: what every CPU received against what the test's namespaces
// received.
void AddHostShare(const Window& w, const std::optional<Window>& peer, OtherTraffic& out) {
  if (!w.softnet || w.processed <= 0) return;
  const double own = w.received + (peer ? peer->received : 0);
  out.own_packets = own;
  out.host_packets = w.processed;
  out.host_share = std::clamp(1 - own / w.processed, 0.0, 1.0);
}

// The host-wide byte measure: what every namespace of the host moved against what the test's
// namespaces moved, over this end's samples (both were read at the same moments).
void AddHostByteShare(const Window& w, const std::optional<Window>& peer, OtherTraffic& out) {
  out.test_namespaces_bytes = w.octets + (peer ? peer->octets : 0);
  out.host_bytes = w.host_bytes;
  if (!w.host_bytes.known()) return;
  if (!(w.host_bytes.value() > 0)) {
    out.host_bytes =
        Measured<double>::Unknown(Missing::kError, "the host's namespaces counted no IP bytes");
    return;
  }
  out.host_byte_share = std::clamp(1 - out.test_namespaces_bytes / w.host_bytes.value(), 0.0, 1.0);
}

Measured<OtherTraffic> UnknownTraffic(Missing why, const char* detail) {
  return Measured<OtherTraffic>::Unknown(why, detail);
}

}  // namespace

Measured<OtherTraffic> OtherTrafficOf(const record::RunRecord& run,
                                      const record::EndpointRecord& end, record::Role role) {
  const Window w = Sum(run, end);
  if (w.seconds <= 0) return UnknownTraffic(Missing::kAbsent, "no network counters sampled");
  // netstat omits a counter whose delta is 0: an idle namespace, not a missing file.
  const double bits = EndBitsPerSecond(run, role);
  if (!(bits > 0)) return UnknownTraffic(Missing::kAbsent, "no data moved");
  const double ends_here = PeerSharesTheNamespace(end) ? 2 : 1;
  OtherTraffic out;
  out.own_bytes = bits / 8 * w.seconds * ends_here * (1 + HeaderAllowance(run.spec));
  out.namespace_bytes = w.counted ? w.octets : 0;
  if (out.namespace_bytes < out.own_bytes / 2) {
    return UnknownTraffic(Missing::kNotSupported,
                          "the namespace's IPv4 byte counters do not cover the test (IPv6?)");
  }
  out.namespace_share = std::clamp(1 - out.own_bytes / out.namespace_bytes, 0.0, 1.0);
  const std::optional<Window> peer = PeerNamespace(run, end);
  AddHostShare(w, peer, out);
  AddHostByteShare(w, peer, out);
  return out;
}

std::string PollutionEvidence(const Measured<OtherTraffic>& other) {
  if (!other.known()) return "";
  const OtherTraffic& o = other.value();
  if (o.namespace_share > kPollutedShare) {
    return fmt::format(
        "{:.0f}% of the IP bytes of this end's network namespace over the test were other "
        "traffic ({:.3g} GB of {:.3g} GB)",
        o.namespace_share * 100, (o.namespace_bytes - o.own_bytes) / 1e9, o.namespace_bytes / 1e9);
  }
  if (o.host_bytes.known() && o.host_byte_share > kPollutedHostByteShare) {
    return fmt::format(
        "{:.0f}% of the IP bytes of this host's network namespaces over the test were other "
        "traffic, outside the test's network namespaces ({:.3g} GB of {:.3g} GB)",
        o.host_byte_share * 100, (o.host_bytes.value() - o.test_namespaces_bytes) / 1e9,
        o.host_bytes.value() / 1e9);
  }
  if (o.host_packets && o.host_share > kPollutedHostShare) {
    return fmt::format(
        "{:.0f}% of the packets this host's CPUs received over the test were other traffic, "
        "outside the test's network namespaces ({:.3g} of {:.3g} packets)",
        o.host_share * 100, *o.host_packets - *o.own_packets, *o.host_packets);
  }
  return "";
}

}  // namespace nicbench::analysis
