// Internal to diagnosis: the goodput a flow could reach if the link were its only limit. The
// link is the slowest of: the sender's and receiver's negotiated NIC speeds (counted on the
// wire: every frame costs MTU + 38 bytes, Ethernet's header 14, FCS 4, preamble 8 and
// inter-frame gap 12), and a shaping qdisc on the sender's egress (tbf/htb charge skb->len,
// which is MTU + 14 on an Ethernet-type device, plus tc's configured overhead). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "diagnosis/run_view.h"

namespace nicbench::diagnosis {

inline constexpr uint32_t kEthernetHeaderBytes = 14;
// Header 14 + FCS 4 + preamble/SFD 8 + inter-frame gap 12 (IEEE 802.3).
inline constexpr uint32_t kEthernetWireOverheadBytes = 38;
// IPv4 20 + TCP 20 + timestamps option 12 (on by default in Linux); IPv6 40 + 20 + 12.
inline constexpr uint32_t kTcp4HeaderBytes = 52;
inline constexpr uint32_t kTcp6HeaderBytes = 72;
inline constexpr uint32_t kUdp4HeaderBytes = 28;
inline constexpr uint32_t kUdp6HeaderBytes = 48;

// A GSO/TSO skb is at most 64 KiB (GSO_LEGACY_MAX_SIZE), so at most this many full frames.
inline constexpr uint32_t kMaxGsoBytes = 65536;

enum class LinkAccounting { kEthernetWire, kQdiscSkb };

struct LinkLimit {
  uint64_t rate_bits_per_second = 0;
  LinkAccounting accounting = LinkAccounting::kEthernetWire;
  uint32_t mtu = 0;            // the path's: the smaller of the two ends' MTUs
  uint32_t packet_bytes = 0;   // IP packet per frame (<= mtu: a peer's MSS may make it smaller)
  uint32_t payload_bytes = 0;  // application bytes per frame
  uint32_t frame_bytes = 0;    // bytes charged per frame at that rate
  // A tbf whose bucket holds a whole TSO/GSO skb behind a sender with TSO/GSO on charges tc's
  // overhead once per skb of up to kMaxGsoSegments frames: frame_bytes then carries the
  // overhead shared out over that many frames (the most goodput the qdisc lets through).
  bool overhead_per_burst = false;
  double goodput_bits_per_second = 0;
  std::string source;  // "negotiated speed of eth0 at remote server (receiver)"
};

// The MTU is the smallest either end reports; a shaping qdisc counts only on the sender's
// egress, with that end's own tc overhead (carried in its record, so a reverse test, where the
// remote end sends, charges the remote qdisc's overhead).
//
// rate x payload / frame: the application bytes a link of that rate carries when every frame
// is full. REQUIRES: frame_bytes > 0.
double GoodputBitsPerSecond(uint64_t rate_bits_per_second, uint32_t payload_bytes,
                            uint32_t frame_bytes);

// The limit of one flow, or nullopt with `missing` set to why it cannot be known (no link:
// loopback; speed unknown; MTU unknown).
std::optional<LinkLimit> FlowLinkLimit(const RunView& view, const Flow& flow, std::string* missing);

}  // namespace nicbench::diagnosis
