// Link rules: goodput compared with what the link (or a shaping qdisc) can carry.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/units.h"
#include "diagnosis/link.h"
#include "diagnosis/nic_view.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

std::string GoodputEvidence(const Flow& flow) {
  return fmt::format("goodput, {}: {} over {:.1f} s ({} streams, receiver's byte count)",
                     FlowName(flow), FormatBitRate(flow.bits_per_second), flow.seconds,
                     flow.streams);
}

std::string FormulaEvidence(const LinkLimit& limit) {
  std::string counted;
  if (limit.accounting == LinkAccounting::kEthernetWire) {
    counted = fmt::format(
        "{} bytes on the wire (IP packet + 38: Ethernet header 14, FCS 4, "
        "preamble 8, inter-frame gap 12)",
        limit.frame_bytes);
  } else if (limit.overhead_per_burst) {
    counted = fmt::format(
        "{} bytes as the qdisc counts them (skb length: IP packet + 14-byte "
        "header; TSO/GSO is on and the tbf bucket holds a whole 64 KiB burst, "
        "so its configured overhead is charged once per burst, {} byte(s) a "
        "frame)",
        limit.frame_bytes, limit.frame_bytes - limit.packet_bytes - kEthernetHeaderBytes);
  } else {
    counted = fmt::format(
        "{} bytes as the qdisc counts them (skb length: IP packet + 14-byte "
        "header, plus {} bytes of configured overhead)",
        limit.frame_bytes, limit.frame_bytes - limit.packet_bytes - kEthernetHeaderBytes);
  }
  return fmt::format(
      "{}: {}; at the path's MTU {} each frame carries {} payload bytes in {}: "
      "{} x {}/{} = {} of goodput at most",
      limit.source, FormatBitRate(static_cast<double>(limit.rate_bits_per_second)), limit.mtu,
      limit.payload_bytes, counted, FormatBitRate(static_cast<double>(limit.rate_bits_per_second)),
      limit.payload_bytes, limit.frame_bytes, FormatBitRate(limit.goodput_bits_per_second));
}

// A paced test (-b) below the link's rate is limited by its own request, not the link.
bool PacedBelow(const RunView& view, const Flow& flow, const LinkLimit& limit,
                const Thresholds& t) {
  uint64_t per_stream = view.run().spec.rate_bits_per_second;
  if (per_stream == 0) return false;
  double requested = static_cast<double>(per_stream) * std::max(flow.streams, 1);
  return requested < t.link_limited_fraction * limit.goodput_bits_per_second;
}

bool SpeedUnknownOnWire(const Flow& flow) {
  for (const End* end : {flow.sender, flow.receiver}) {
    if (end == nullptr) continue;
    const record::NicFacts& nic = end->record->nic;
    if (!IsSoftwareNic(nic) && !nic.speed_mbps.known()) return true;
  }
  return false;
}

record::Finding SpeedUnknown(const Flow& flow, const std::string& missing) {
  record::Finding f = MakeFinding("link-speed-unknown", Severity::kInfo,
                                  "Link-rate rule skipped: the link speed is not known");
  f.evidence.push_back(GoodputEvidence(flow));
  f.evidence.push_back(missing);
  f.meaning = "Without the negotiated speed the goodput cannot be compared with the link.";
  f.next_step =
      "Run nicbench with CAP_NET_ADMIN (or as root) so it can read the link settings, "
      "or check `ethtool IF` by hand.";
  return f;
}

}  // namespace

Findings LinkRateLimited(const RunView& view, const Thresholds& t) {
  Findings out;
  for (const Flow& flow : view.flows()) {
    if (flow.bits_per_second <= 0) continue;
    std::string missing;
    auto limit = FlowLinkLimit(view, flow, &missing);
    if (!limit) {
      if (SpeedUnknownOnWire(flow)) out.push_back(SpeedUnknown(flow, missing));
      continue;
    }
    if (PacedBelow(view, flow, *limit, t)) continue;
    double share = flow.bits_per_second / limit->goodput_bits_per_second;
    if (share < t.link_limited_fraction) continue;
    bool shaped = limit->accounting == LinkAccounting::kQdiscSkb;
    record::Finding f =
        MakeFinding("link-rate-limited", Severity::kNotice,
                    fmt::format("{}-rate limited: {} is {:.0f}% of what {} carries",
                                shaped ? "Shaping" : "Link", FormatBitRate(flow.bits_per_second),
                                share * 100, shaped ? "the qdisc's rate" : "the link"));
    f.evidence.push_back(GoodputEvidence(flow));
    f.evidence.push_back(FormulaEvidence(*limit));
    f.meaning = shaped ? "The transfer runs at the rate a shaping qdisc allows: the qdisc is the "
                         "limit, not a CPU or the NIC."
                       : "The transfer runs at the line rate of the link: nothing else limits it, "
                         "and no tuning of either host will make it faster.";
    f.next_step = shaped ? "Raise or remove the qdisc's rate (tc qdisc show dev IF) if it is not "
                           "meant to limit this path."
                         : "For more, use a faster link; if the NICs can do more than this speed, "
                           "check the cable, the switch port and autonegotiation (ethtool IF).";
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

// -b of every stream of the flow together: the payload rate the senders were asked for.
double OfferedBitsPerSecond(const RunView& view, const Flow& flow) {
  return static_cast<double>(view.run().spec.rate_bits_per_second) * std::max(flow.streams, 1);
}

// What became of the offer: the sender's own count, what arrived, what was lost, and whether
// the sender's socket refused sends (Udp.SndbufErrors also counts the EAGAIN of a full socket,
// which is the qdisc holding the excess, not a drop).
void AddDeliveryEvidence(const RunView& view, const Flow& flow, const LinkLimit& limit,
                         std::vector<std::string>& evidence) {
  if (flow.seconds > 0 && flow.bytes_sent > 0) {
    evidence.push_back(fmt::format("sent: {} (the sender's count: what the kernel took)",
                                   FormatBitRate(flow.bytes_sent * 8.0 / flow.seconds)));
  }
  const double lost_share =
      flow.udp_packets > 0 ? static_cast<double>(flow.udp_lost) / flow.udp_packets : 0;
  evidence.push_back(fmt::format(
      "delivered: {} over {:.1f} s, {:.0f}% of what the link carries; {} of {} datagrams lost "
      "({:.1f}%)",
      FormatBitRate(flow.bits_per_second), flow.seconds,
      100 * flow.bits_per_second / limit.goodput_bits_per_second, flow.udp_lost, flow.udp_packets,
      100 * lost_share));
  if (flow.sender == nullptr) return;
  auto refused = NetCounterSum(view, *flow.sender, "Udp.SndbufErrors");
  if (refused && *refused > 0) {
    evidence.push_back(fmt::format(
        "{}: Udp.SndbufErrors +{}: sends refused while the socket was full of datagrams the "
        "link had not yet carried",
        flow.sender->name, *refused));
  }
}

}  // namespace

// Bug (issue 27, item 3): `-u -b 200M` on a 100 Mbit/s link said only that the sender's socket
// buffer overflowed. The request itself is what to fix: no link carries more than its rate.
Findings UdpOfferedAboveLink(const RunView& view, const Thresholds&) {
  Findings out;
  if (view.tcp() || view.run().spec.rate_bits_per_second == 0) return out;
  for (const Flow& flow : view.flows()) {
    auto limit = FlowLinkLimit(view, flow, nullptr);
    if (!limit) continue;
    const double offered = OfferedBitsPerSecond(view, flow);
    if (offered <= limit->goodput_bits_per_second) continue;
    record::Finding f = MakeFinding(
        "udp-offered-above-link", Severity::kWarning,
        fmt::format("UDP offered above the link's rate: {} asked, the link carries {}",
                    FormatBitRate(offered), FormatBitRate(limit->goodput_bits_per_second)));
    f.evidence.push_back(
        fmt::format("offered: {} (-b {} x {} stream(s)), {}", FormatBitRate(offered),
                    FormatBitRate(static_cast<double>(view.run().spec.rate_bits_per_second)),
                    std::max(flow.streams, 1), FlowName(flow)));
    f.evidence.push_back(FormulaEvidence(*limit));
    AddDeliveryEvidence(view, flow, *limit, f.evidence);
    f.meaning =
        "-b asks for more than the link can carry. The excess waits in the socket and the "
        "queues below it or is dropped where a queue overflows; the receiver gets the link's "
        "rate at most, and the loss and jitter describe an overfull queue, not the path at the "
        "rate asked.";
    f.next_step = fmt::format(
        "Offer at or below the link's rate (-b {:.0f}M here, or per stream with -P); to find "
        "where loss starts, step -b up towards it.",
        std::floor(limit->goodput_bits_per_second / std::max(flow.streams, 1) / 1e6));
    out.push_back(std::move(f));
  }
  return out;
}

Findings FarBelowLinkRate(const RunView& view, const Thresholds& t, const Findings& so_far) {
  Findings out;
  for (const auto& f : so_far) {
    if (f.severity >= Severity::kWarning) return out;  // something already explains it
  }
  for (const Flow& flow : view.flows()) {
    if (flow.bits_per_second <= 0) continue;
    auto limit = FlowLinkLimit(view, flow, nullptr);
    if (!limit || PacedBelow(view, flow, *limit, t)) continue;
    double share = flow.bits_per_second / limit->goodput_bits_per_second;
    if (share >= t.far_below_fraction) continue;
    record::Finding f = MakeFinding(
        "far-below-link-rate", Severity::kWarning,
        fmt::format("Far below the link rate, and nothing measured explains it: {} is {:.0f}% "
                    "of {}",
                    FormatBitRate(flow.bits_per_second), share * 100,
                    FormatBitRate(limit->goodput_bits_per_second)));
    f.evidence.push_back(GoodputEvidence(flow));
    f.evidence.push_back(FormulaEvidence(*limit));
    f.evidence.emplace_back("no core saturated, no loss, drops or window limit were found");
    if (view.remote() == nullptr) {
      f.evidence.emplace_back(
          "the peer did not report its measurements, so its side is unexamined");
    }
    f.meaning =
        "The limit is somewhere the measurements do not reach: the path between the "
        "hosts (a slower hop, a busy switch), the peer, or the application pattern.";
    f.next_step =
        "Run nicbench serve on the peer so both ends are measured; try -R and -P 4; "
        "test each hop of the path on its own.";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace nicbench::diagnosis
