#include "diagnosis/link.h"

#include <fmt/format.h>

#include "record/test_spec.h"

namespace nicbench::diagnosis {
namespace {

struct Packet {
  uint32_t ip_bytes = 0;       // IP packet length per frame
  uint32_t payload_bytes = 0;  // application bytes in it
};

// A full-sized packet of the flow at this MTU, or nullopt when the flow's packets are not
// modelled (UDP datagrams that fragment).
std::optional<Packet> FullPacket(const RunView& view, const Flow& flow, uint32_t mtu) {
  if (view.tcp()) {
    uint32_t header = view.ipv6() ? kTcp6HeaderBytes : kTcp4HeaderBytes;
    if (mtu <= header) return std::nullopt;
    uint32_t payload = mtu - header;
    // TCP_INFO's snd_mss is the payload per segment after options, the better figure; the
    // packet is that payload plus headers (a peer's smaller MSS makes packets below the MTU).
    if (flow.tcp && flow.tcp->snd_mss > 0 && flow.tcp->snd_mss < payload) {
      payload = flow.tcp->snd_mss;
    }
    return Packet{payload + header, payload};
  }
  uint32_t header = view.ipv6() ? kUdp6HeaderBytes : kUdp4HeaderBytes;
  uint32_t block = record::EffectiveBlockBytes(view.run().spec);
  if (block + header > mtu) return std::nullopt;
  return Packet{block + header, block};
}

// Whether the sender hands the qdisc segment bursts (TSO or GSO on) that its tbf bucket holds
// whole: then tbf charges each burst as one packet (sch_tbf.c segments only skbs larger than
// its max_size, the bucket), so tc's overhead is paid once per burst, not per frame.
bool OverheadPerBurst(const record::NicFacts& nic, const record::Qdisc& q, uint32_t frame) {
  if (q.overhead_bytes == 0 || q.kind != "tbf" || q.burst_bytes == 0) return false;
  const auto* offloads = nic.offloads.get();
  if (offloads == nullptr) return false;
  bool bursts = false;
  for (const record::OffloadState& o : *offloads) {
    bursts = bursts ||
             ((o.name == "tcp-segmentation-offload" || o.name == "generic-segmentation-offload") &&
              o.on);
  }
  const uint64_t full_burst = uint64_t{kMaxGsoBytes} / frame * frame;
  return bursts && q.burst_bytes >= full_burst;
}

void Consider(std::optional<LinkLimit>& best, LinkLimit candidate) {
  if (!best || candidate.goodput_bits_per_second < best->goodput_bits_per_second) {
    best = std::move(candidate);
  }
}

// The path carries packets no larger than its smallest MTU (h2 at 9000 talking to h1 at
// 1500 sends 1500-byte packets: h1's SYN announces the smaller MSS); loopback ends do not count.
std::optional<uint32_t> PathMtu(const Flow& flow) {
  std::optional<uint32_t> mtu;
  for (const End* end : {flow.sender, flow.receiver}) {
    if (end == nullptr || end->record->nic.loopback || !end->record->nic.mtu.known()) continue;
    const uint32_t m = end->record->nic.mtu.value();
    if (!mtu || m < *mtu) mtu = m;
  }
  return mtu;
}

// The limit of the shaping qdisc on the sender's egress. REQUIRES: QdiscRate(nic) > 0.
LinkLimit QdiscLimit(const RunView& view, const End& sender, uint32_t mtu, const Packet& packet) {
  const record::NicFacts& nic = sender.record->nic;
  const record::Qdisc& q = nic.qdisc.value();
  LinkLimit limit;
  limit.rate_bits_per_second = QdiscRate(nic);
  limit.accounting = LinkAccounting::kQdiscSkb;
  limit.mtu = mtu;
  limit.packet_bytes = packet.ip_bytes;
  limit.payload_bytes = packet.payload_bytes;
  const uint32_t frame = packet.ip_bytes + kEthernetHeaderBytes;
  limit.overhead_per_burst = view.tcp() && OverheadPerBurst(nic, q, frame);
  // Per frame: the whole overhead, or its share of a burst of 64 KiB / frame frames.
  const uint32_t frames_per_burst = limit.overhead_per_burst ? kMaxGsoBytes / frame : 1;
  limit.frame_bytes = frame + (q.overhead_bytes + frames_per_burst - 1) / frames_per_burst;
  limit.goodput_bits_per_second =
      GoodputBitsPerSecond(limit.rate_bits_per_second, limit.payload_bytes, limit.frame_bytes);
  limit.source = fmt::format("{} qdisc rate on {} at the {}", q.kind, nic.interface, sender.name);
  return limit;
}

// The limit of an end's negotiated link speed, every frame counted on the wire.
// REQUIRES: the end's NIC reports a nonzero speed.
LinkLimit WireLimit(const End& end, uint32_t mtu, const Packet& packet) {
  const record::NicFacts& nic = end.record->nic;
  LinkLimit limit;
  limit.rate_bits_per_second = nic.speed_mbps.value() * 1000000ull;
  limit.accounting = LinkAccounting::kEthernetWire;
  limit.mtu = mtu;
  limit.packet_bytes = packet.ip_bytes;
  limit.payload_bytes = packet.payload_bytes;
  limit.frame_bytes = packet.ip_bytes + kEthernetWireOverheadBytes;
  limit.goodput_bits_per_second =
      GoodputBitsPerSecond(limit.rate_bits_per_second, limit.payload_bytes, limit.frame_bytes);
  limit.source = fmt::format("negotiated speed of {} at the {}", nic.interface, end.name);
  return limit;
}

}  // namespace

double GoodputBitsPerSecond(uint64_t rate_bits_per_second, uint32_t payload_bytes,
                            uint32_t frame_bytes) {
  return static_cast<double>(rate_bits_per_second) * payload_bytes / frame_bytes;
}

std::optional<LinkLimit> FlowLinkLimit(const RunView& view, const Flow& flow,
                                       std::string* missing) {
  const std::optional<uint32_t> mtu = PathMtu(flow);
  std::optional<LinkLimit> best;
  std::string why;
  for (const End* end : {flow.sender, flow.receiver}) {
    if (end == nullptr) continue;
    const record::NicFacts& nic = end->record->nic;
    if (nic.loopback) {
      why = "loopback has no link";
      continue;
    }
    if (!mtu) {
      why = fmt::format("the MTU of {} at the {} is unknown ({})", nic.interface, end->name,
                        record::MissingName(nic.mtu.why()));
      continue;
    }
    auto packet = FullPacket(view, flow, *mtu);
    if (!packet) {
      why = "UDP datagrams larger than the MTU are fragmented; the rule does not model them";
      continue;
    }
    if (end == flow.sender && QdiscRate(nic) > 0) {
      Consider(best, QdiscLimit(view, *end, *mtu, *packet));
    }
    if (IsSoftwareNic(nic)) {
      if (why.empty())
        why = fmt::format("{} is a {} device with no wire", nic.interface, nic.driver.value());
      continue;
    }
    if (!nic.speed_mbps.known() || nic.speed_mbps.value() == 0) {
      why = fmt::format("the link speed of {} at the {} is unknown ({})", nic.interface, end->name,
                        record::MissingName(nic.speed_mbps.why()));
      continue;
    }
    Consider(best, WireLimit(*end, *mtu, *packet));
  }
  if (!best && missing) *missing = why.empty() ? "no end reported its NIC" : why;
  return best;
}

}  // namespace nicbench::diagnosis
