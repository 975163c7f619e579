// Transport rules: retransmissions, UDP loss, drops in the host (softnet backlog, socket
// buffers) and a TCP sender held back by the receive window or its own send buffer.
#include <algorithm>

#include <fmt/format.h>

#include "base/units.h"
#include "diagnosis/link.h"
#include "diagnosis/rules.h"
#include "diagnosis/saturation.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

// Sum of one protocol counter's deltas over an end's counted samples; nullopt when no sample
// carries the counter (an old kernel, or counters not sampled).
std::optional<int64_t> CounterSum(const RunView& view, const End& end, const std::string& key) {
  std::optional<int64_t> sum;
  for (const auto* s : view.Samples(end)) {
    const auto* counters = s->net_counters.get();
    if (counters == nullptr) continue;
    auto it = counters->find(key);
    if (it == counters->end()) continue;
    sum = sum.value_or(0) + it->second;
  }
  return sum;
}

uint32_t SegmentPayload(const RunView& view, const Flow& flow) {
  if (flow.tcp && flow.tcp->snd_mss > 0) return flow.tcp->snd_mss;
  for (const End* end : {flow.sender, flow.receiver}) {
    if (end && end->record->nic.mtu.known() && !end->record->nic.loopback) {
      uint32_t header = view.ipv6() ? kTcp6HeaderBytes : kTcp4HeaderBytes;
      if (end->record->nic.mtu.value() > header) return end->record->nic.mtu.value() - header;
    }
  }
  return 1448;  // Ethernet MTU 1500 with timestamps: the commonest case
}

}  // namespace

// Retransmissions the receiver reported as duplicates (DSACK): the sender took reordering for
// loss. Worth knowing, not a limit: TCP undoes the window cut when the DSACK arrives.
record::Finding Reordering(const Flow& flow, uint64_t spurious, uint64_t retrans, double segments) {
  record::Finding f = MakeFinding(
      "reordering", Severity::kNotice,
      fmt::format("Packets arrive out of order: {:.2f}% of segments were retransmitted needlessly",
                  spurious / segments * 100));
  f.evidence.push_back(fmt::format(
      "{}: the receiver got {} of the {} retransmitted segments twice (sender's TCP_INFO "
      "dsack_dups); {} reordering events seen (reord_seen), reordering degree {}",
      FlowName(flow), spurious, retrans, flow.tcp->reord_seen, flow.tcp->reordering));
  f.meaning =
      "A segment that arrives after later ones looks lost; the sender resent it, and the "
      "receiver's duplicate report (DSACK) showed it was not. On one machine (veth, "
      "loopback) the sending thread moving between CPUs queues packets on different "
      "per-CPU backlogs; on a network, per-packet load balancing (LAG, ECMP) or one flow "
      "spread over several NIC queues does it. TCP undoes the window cut once it sees "
      "the DSACK, so the cost is the duplicate bytes.";
  f.next_step =
      "On one machine, pin the sender to a CPU (taskset) and compare; on a network, "
      "check that link aggregation and ECMP hash per flow, not per packet.";
  return f;
}

Findings Retransmissions(const RunView& view, const Thresholds& t) {
  Findings out;
  if (!view.tcp()) return out;
  for (const Flow& flow : view.flows()) {
    if (flow.bytes_sent == 0) continue;
    std::optional<uint64_t> retrans = flow.retransmits;
    std::string source = "sender's TCP_INFO (total_retrans)";
    if (!retrans && flow.sender) {
      auto segs = CounterSum(view, *flow.sender, "Tcp.RetransSegs");
      if (segs && *segs >= 0) retrans = static_cast<uint64_t>(*segs);
      source = "sender host's Tcp.RetransSegs (all TCP traffic of that host)";
    }
    if (!retrans) continue;  // the sender's counts are not in the record: stay silent
    uint32_t mss = SegmentPayload(view, flow);
    double segments = static_cast<double>(flow.bytes_sent) / mss;
    if (segments <= 0) continue;
    // Retransmissions the receiver got twice were not losses: they are judged apart.
    const uint64_t spurious = flow.tcp ? std::min<uint64_t>(flow.tcp->dsack_dups, *retrans) : 0;
    if (spurious / segments >= t.retransmit_notice_fraction) {
      out.push_back(Reordering(flow, spurious, *retrans, segments));
    }
    const uint64_t lost = *retrans - spurious;
    double fraction = lost / segments;
    if (fraction < t.retransmit_notice_fraction) continue;
    bool warn = fraction >= t.retransmit_warning_fraction;
    record::Finding f =
        MakeFinding("retransmissions", warn ? Severity::kWarning : Severity::kNotice,
                    fmt::format("{:.2f}% of segments retransmitted ({} of ~{:.0f})", fraction * 100,
                                lost, segments));
    f.evidence.push_back(fmt::format("{}: {} retransmitted segments, from the {}", FlowName(flow),
                                     *retrans, source));
    if (spurious > 0) {
      f.evidence.push_back(
          fmt::format("{} of them were needless (the receiver got them twice, "
                      "DSACK) and are not counted here",
                      spurious));
    }
    f.evidence.push_back(
        fmt::format("{} sent in segments of {} bytes", FormatBytes(flow.bytes_sent), mss));
    if (flow.sender) {
      auto timeouts = CounterSum(view, *flow.sender, "TcpExt.TCPTimeouts");
      if (timeouts && *timeouts > 0) {
        f.evidence.push_back(fmt::format("{}: {} retransmission timeouts (TcpExt.TCPTimeouts)",
                                         flow.sender->name, *timeouts));
      }
    }
    f.meaning = warn ? "Packets are lost on the path or in a queue; each loss halves the "
                       "sender's window, so heavy loss caps the throughput."
                     : "Some loss, as loss-based congestion control causes when it fills a "
                       "bottleneck queue; it is not by itself a limit.";
    f.next_step =
        "Look for drops: qdisc statistics (tc -s qdisc), NIC counters (ethtool -S, "
        "ip -s link) on both ends and the switch ports; a small shaping queue or a "
        "bad cable shows here.";
    out.push_back(std::move(f));
  }
  return out;
}

Findings UdpLoss(const RunView& view, const Thresholds& t) {
  Findings out;
  if (view.tcp()) return out;
  for (const Flow& flow : view.flows()) {
    if (flow.udp_packets == 0) continue;
    double fraction = static_cast<double>(flow.udp_lost) / flow.udp_packets;
    if (fraction < t.udp_loss_fraction) continue;
    record::Finding f = MakeFinding("udp-loss", Severity::kWarning,
                                    fmt::format("{:.1f}% of UDP datagrams lost", fraction * 100));
    f.evidence.push_back(fmt::format("{}: {} of {} datagrams lost (receiver's sequence numbers)",
                                     FlowName(flow), flow.udp_lost, flow.udp_packets));
    f.meaning = "The offered rate is more than the path or the receiver takes.";
    f.next_step =
        "Lower -b until loss stops to find the sustainable rate; see the drop findings "
        "for where datagrams die (socket buffer: raise -w).";
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

// On one host the ends read the same counters (RunView::SharedSoftnet,
// SharedProtocolCounters): such a counter is judged once, from the local end's samples (bug:
// Udp.RcvbufErrors +124085 was blamed on the sender and on the receiver of one loopback test).
std::vector<const End*> EndsToJudge(const RunView& view, bool same_counters) {
  if (same_counters) return {&view.local()};
  return view.ends();
}

record::Finding SoftnetFinding(const std::string& place, uint64_t dropped, uint64_t squeezed) {
  record::Finding f = MakeFinding(
      "softnet-drops", Severity::kWarning,
      fmt::format("{} packets dropped at the softnet backlog at the {}", dropped, place));
  f.evidence.push_back(fmt::format("{}: /proc/net/softnet_stat dropped +{}, time_squeeze +{}",
                                   place, dropped, squeezed));
  f.meaning =
      "The per-CPU input queue overflowed: packets arrive faster than that CPU's "
      "softirq processes them.";
  f.next_step =
      "Raise net.core.netdev_max_backlog, spread the work (RPS/RSS), and check "
      "that the receiving core is not saturated.";
  return f;
}

Findings SoftnetDrops(const RunView& view) {
  Findings out;
  const bool once = view.SharedSoftnet();
  for (const End* end : EndsToJudge(view, once)) {
    uint64_t dropped = 0, squeezed = 0;
    for (const auto* s : view.Samples(*end)) {
      if (const auto* softnet = s->softnet.get()) {
        for (const auto& d : *softnet) {
          dropped += d.dropped;
          squeezed += d.time_squeeze;
        }
      }
    }
    if (dropped == 0) continue;
    const std::string place = once ? view.HostPlace() : end->name;
    out.push_back(SoftnetFinding(place, dropped, squeezed));
  }
  return out;
}

Findings SocketDrops(const RunView& view) {
  struct Counter {
    const char* key;
    bool receive_side;
  };
  static const Counter kSocketCounters[] = {{"Udp.RcvbufErrors", true},
                                            {"Udp.SndbufErrors", false},
                                            {"TcpExt.TCPRcvQDrop", true},
                                            {"TcpExt.TCPBacklogDrop", true}};
  const bool once = view.SharedProtocolCounters();
  // Evidence by the place it is blamed on, in the order the places come.
  std::vector<std::pair<std::string, std::vector<std::string>>> places;
  for (const End* end : EndsToJudge(view, once)) {
    for (const Counter& c : kSocketCounters) {
      auto sum = CounterSum(view, *end, c.key);
      if (!sum || *sum <= 0) continue;
      const std::string place = once ? view.SharedPlace(c.receive_side) : end->name;
      auto it = std::find_if(places.begin(), places.end(),
                             [&](const auto& p) { return p.first == place; });
      if (it == places.end()) it = places.insert(places.end(), {place, {}});
      it->second.push_back(fmt::format("{}: {} +{}{}", place, c.key, *sum,
                                       once ? " (one host: both ends read this counter; "
                                              "counted once)"
                                            : ""));
    }
  }
  Findings out;
  for (auto& [place, evidence] : places) {
    record::Finding f = MakeFinding("socket-buffer-drops", Severity::kWarning,
                                    fmt::format("Socket buffer drops at the {}", place));
    f.evidence = std::move(evidence);
    f.meaning =
        "The socket's buffer was full when data arrived (or was sent), so the kernel "
        "dropped it: the application does not read fast enough or the buffer is small.";
    f.next_step =
        "Raise the socket buffer (-w, net.core.rmem_max / wmem_max) and check the "
        "receiving process's CPU.";
    out.push_back(std::move(f));
  }
  return out;
}
}  // namespace

Findings Drops(const RunView& view, const Thresholds&) {
  Findings out = SoftnetDrops(view);
  Findings sockets = SocketDrops(view);
  out.insert(out.end(), std::make_move_iterator(sockets.begin()),
             std::make_move_iterator(sockets.end()));
  return out;
}

Findings WindowLimited(const RunView& view, const Thresholds& t) {
  Findings out;
  if (!view.tcp()) return out;
  const auto& spec = view.run().spec;
  // On loopback or unshaped veth the receiver's copy is the slower side by nature.
  if (view.UnshapedSoftwarePath() && spec.window_bytes == 0) return out;
  for (const Flow& flow : view.flows()) {
    if (!flow.tcp || flow.tcp->busy_us == 0) continue;
    double rwnd = static_cast<double>(flow.tcp->rwnd_limited_us) / flow.tcp->busy_us;
    double sndbuf = static_cast<double>(flow.tcp->sndbuf_limited_us) / flow.tcp->busy_us;
    bool by_rwnd = rwnd >= t.window_limited_fraction;
    if (!by_rwnd && sndbuf < t.window_limited_fraction) continue;
    // A receiver that cannot keep up closes its window too; the CPU finding explains that.
    if (by_rwnd && flow.receiver && Saturated(CoreSaturationAt(view, *flow.receiver, t), t))
      continue;
    record::Finding f = MakeFinding(
        by_rwnd ? "receive-window-limited" : "send-buffer-limited", Severity::kWarning,
        by_rwnd ? fmt::format("Limited by the receiver's window {:.0f}% of the sender's busy time",
                              rwnd * 100)
                : fmt::format("Limited by the sender's socket buffer {:.0f}% of its busy time",
                              sndbuf * 100));
    f.evidence.push_back(fmt::format(
        "{}: sender TCP_INFO busy {:.2f} s, rwnd_limited {:.2f} s, sndbuf_limited {:.2f} s",
        FlowName(flow), flow.tcp->busy_us / 1e6, flow.tcp->rwnd_limited_us / 1e6,
        flow.tcp->sndbuf_limited_us / 1e6));
    if (flow.tcp->mean_rtt_us > 0) {
      double window = spec.window_bytes > 0 ? spec.window_bytes : flow.tcp->snd_wnd;
      if (window > 0) {
        f.evidence.push_back(fmt::format("{} {} / RTT {:.2f} ms = {} at most; measured {}",
                                         spec.window_bytes > 0 ? "-w" : "advertised window",
                                         FormatBytes(window), flow.tcp->mean_rtt_us / 1000,
                                         FormatBitRate(window * 8 / (flow.tcp->mean_rtt_us / 1e6)),
                                         FormatBitRate(flow.bits_per_second)));
      }
    }
    f.meaning =
        "TCP could send more but a buffer is full: the transfer is limited by window "
        "size over round-trip time, not by the link.";
    f.next_step = spec.window_bytes > 0
                      ? "Raise -w to at least bandwidth x RTT, or drop it and let the kernel "
                        "autotune."
                      : "Raise net.ipv4.tcp_rmem / tcp_wmem maxima (and net.core.rmem_max / "
                        "wmem_max) to at least bandwidth x RTT.";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace nicbench::diagnosis
