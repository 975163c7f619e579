#include "analysis/drop_ladder.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analysis/driver_counters.h"
#include "analysis/figures.h"

namespace nicbench::analysis {
namespace {

using Samples = std::vector<const record::HostInterval*>;
using CounterMap = std::map<std::string, int64_t>;

Rung MakeRung(Layer layer, const char* name) {
  Rung rung;
  rung.layer = layer;
  rung.name = name;
  return rung;
}

// A counter's deltas summed over the samples that carry `get`'s map; nullopt when none has it.
template <typename Get>
std::optional<uint64_t> Sum(const Samples& samples, const std::string& key, Get get) {
  std::optional<uint64_t> sum;
  for (const auto* s : samples) {
    const CounterMap* counters = get(*s);
    if (counters == nullptr) continue;
    auto it = counters->find(key);
    if (it != counters->end()) sum = sum.value_or(0) + std::max<int64_t>(it->second, 0);
  }
  return sum;
}

std::optional<uint64_t> NicSum(const Samples& samples, const std::string& key) {
  return Sum(samples, key, [](const record::HostInterval& s) { return s.nic_counters.get(); });
}

std::optional<uint64_t> NetSum(const Samples& samples, const std::string& key) {
  return Sum(samples, key, [](const record::HostInterval& s) { return s.net_counters.get(); });
}

// Why a per-sample measurement is unknown: the first sample's reason, or that there are none.
template <typename T>
std::string WhyUnknown(const Samples& samples, const record::Measured<T> record::HostInterval::*m) {
  if (samples.empty()) return "no host samples from this end";
  const record::Measured<T>& first = (*samples.front()).*m;
  std::string why = record::MissingName(first.why());
  if (!first.detail().empty()) why += ": " + first.detail();
  return why;
}

// /sys/class/net/IF/statistics: misses (the NIC's and its FIFO's), no-buffer (rx_dropped: the
// kernel had no buffer), tx drops; the error counters beside them, since drivers add their misses
// to rx_errors too.
void SysNicRung(const Samples& samples, Rung& rung) {
  std::optional<uint64_t> total;
  uint64_t misses = 0, no_buffer = 0, tx = 0;
  for (const char* key : {"rx_missed_errors", "rx_fifo_errors", "rx_dropped", "tx_dropped"}) {
    const auto v = NicSum(samples, key);
    if (!v) continue;
    total = total.value_or(0) + *v;
    std::string_view k = key;
    (k == "rx_dropped" ? no_buffer : k == "tx_dropped" ? tx : misses) += *v;
  }
  if (!total) return;
  const uint64_t errors =
      NicSum(samples, "rx_errors").value_or(0) + NicSum(samples, "tx_errors").value_or(0);
  rung.dropped = total;
  rung.parts = {{"misses", misses}, {"no-buffer", no_buffer}, {"tx drops", tx}, {"errors", errors}};
  rung.source = "/sys/class/net statistics";
}

// The driver's own counters (ethtool -S at the start and the end of the data): drivers such as
// e1000e count a frame lost for want of a descriptor as both missed and no-buffer, so the larger
// of the two counts, not their sum.
void DriverNicRung(const record::NicFacts& nic, Rung& rung) {
  const auto m = DriverCounterDeltas(nic);
  if (!m) return;
  const uint64_t missed = m->Total(CounterKind::kRxMissed) + m->Total(CounterKind::kRxFifo);
  const uint64_t no_buffer = m->Total(CounterKind::kRxNoBuffer);
  const uint64_t tx = m->Total(CounterKind::kTxDrop);
  const uint64_t driver =
      std::max(m->Total(CounterKind::kRxMissed), no_buffer) + m->Total(CounterKind::kRxFifo) + tx;
  if (rung.dropped && driver <= *rung.dropped) return;
  rung.dropped = driver;
  rung.parts = {{"misses", missed}, {"no-buffer", no_buffer}, {"tx drops", tx}};
  rung.source = "the driver's ring and buffer counters (ethtool -S)";
}

// A software device without a wire (veth, tun, bridge, dummy) has no NIC rung: its drop counters
// are the kernel's queues around it. A veth's transmit hands the packet to the peer's netif_rx;
// when the receiving CPU's backlog is full, enqueue_to_backlog counts it in softnet_stat's
// dropped column and as the peer's rx_dropped, and veth_xmit counts it again as the sender's
// tx_dropped (kernel 6.18 net/core/dev.c enqueue_to_backlog, drivers/net/veth.c veth_xmit): one
// packet, three counters. Counted here, they put the lowest drop at "the NIC" when the softnet
// backlog dropped.
void SoftwareNicRung(const Samples& samples, const record::NicFacts& nic, Rung& rung) {
  rung.why = nic.driver.value() + ": no NIC on the path";
  const uint64_t rx = NicSum(samples, "rx_dropped").value_or(0);
  const uint64_t tx = NicSum(samples, "tx_dropped").value_or(0);
  if (rx > 0 || tx > 0) {
    rung.why +=
        fmt::format("; its rx_dropped {} and tx_dropped {} are the kernel's queues", rx, tx);
  }
}

Rung NicRung(const Samples& samples, const record::EndpointRecord& end) {
  Rung rung = MakeRung(Layer::kNic, "NIC");
  if (end.nic.loopback) {
    rung.why = "loopback: no NIC on the path";
    return rung;
  }
  if (IsSoftwareNic(end.nic)) {
    SoftwareNicRung(samples, end.nic, rung);
    return rung;
  }
  SysNicRung(samples, rung);
  DriverNicRung(end.nic, rung);
  if (!rung.dropped) rung.why = WhyUnknown(samples, &record::HostInterval::nic_counters);
  return rung;
}

Rung SoftnetRung(const Samples& samples) {
  Rung rung = MakeRung(Layer::kSoftnet, "softnet backlog");
  uint64_t dropped = 0, squeezed = 0;
  for (const auto* s : samples) {
    const auto* softnet = s->softnet.get();
    if (softnet == nullptr) continue;
    rung.dropped = 0;
    for (const record::SoftnetDelta& d : *softnet) {
      dropped += d.dropped;
      squeezed += d.time_squeeze;
    }
  }
  if (!rung.dropped) {
    rung.why = WhyUnknown(samples, &record::HostInterval::softnet);
    return rung;
  }
  rung.dropped = dropped;
  // A time squeeze is a poll that ran out of budget with work left: not a drop, but the reason
  // the backlog fills.
  rung.parts = {{"dropped", dropped}, {"time squeeze", squeezed}};
  rung.source = "/proc/net/softnet_stat";
  return rung;
}

Rung SocketRung(const Samples& samples) {
  Rung rung = MakeRung(Layer::kSocket, "socket");
  for (const char* key : {"Udp.RcvbufErrors", "TcpExt.TCPRcvQDrop", "TcpExt.TCPBacklogDrop"}) {
    const auto v = NetSum(samples, key);
    if (!v) continue;
    rung.dropped = rung.dropped.value_or(0) + *v;
    rung.parts.emplace_back(std::string(key).substr(std::string(key).find('.') + 1), *v);
  }
  if (rung.dropped) {
    rung.source = "/proc/net/snmp and netstat";
  } else {
    rung.why = WhyUnknown(samples, &record::HostInterval::net_counters);
  }
  return rung;
}

// The root qdisc's drops over the counted intervals. Its counter is cumulative and read at each
// interval's end: the last counted reading less the one before the first counted interval (an
// omitted warm-up interval's) or, without one, less the first counted reading, so that
// interval's own drops are left out and the source says so. A counter that went back, or a
// qdisc of another kind at the end, means the qdisc was replaced during the test: unknown.
Rung QdiscRung(const record::EndpointRecord& end, const Samples& counted) {
  Rung rung = MakeRung(Layer::kQdisc, "qdisc");
  const std::string tc = "; `tc -s qdisc show dev " + end.nic.interface + "` shows its drops";
  const record::QueueSample* last = counted.empty() ? nullptr : counted.back()->queues.get();
  if (last == nullptr) {
    rung.why = WhyUnknown(counted, &record::HostInterval::queues) + tc;
    return rung;
  }
  const size_t first = static_cast<size_t>(counted.front() - end.samples.data());
  const bool before =
      first > 0 && first < end.samples.size() && end.samples[first - 1].queues.known();
  const record::QueueSample* base =
      before ? end.samples[first - 1].queues.get() : counted.front()->queues.get();
  if (base == nullptr || base->qdisc != last->qdisc || base->drops > last->drops) {
    rung.why = "the root qdisc was replaced during the test" + tc;
    return rung;
  }
  rung.dropped = last->drops - base->drops;
  rung.source = "the root qdisc's drop counter (" + last->qdisc + "), read at each interval's end";
  if (!before) rung.source += ", from the end of the first counted interval";
  return rung;
}

Rung RetransmissionRung(const record::RunRecord& run, const record::EndpointRecord& end) {
  Rung rung = MakeRung(Layer::kRetransmissions, "retransmissions");
  if (run.spec.transport != record::Transport::kTcp) {
    rung.why = "not TCP: nothing is retransmitted";
    return rung;
  }
  if (!DutyOf(RoleOf(end), run.spec.direction).sends) {
    rung.why = "this end sends no data";
    return rung;
  }
  const DirectionTotals totals = TotalsOf(run, &end == &run.local);
  rung.dropped = totals.retransmits;
  if (rung.dropped) {
    rung.source = "TCP_INFO total_retrans of the streams this end sends";
  } else {
    rung.why = "a stream's retransmissions were not reported";
  }
  return rung;
}

}  // namespace

std::vector<Rung> DropLadderOf(const record::RunRecord& run, const record::EndpointRecord& end) {
  const Samples samples = CountedSamples(run, end);
  return {NicRung(samples, end), SoftnetRung(samples), QdiscRung(end, samples), SocketRung(samples),
          RetransmissionRung(run, end)};
}

std::string RungText(const Rung& rung) {
  if (!rung.dropped) return "unknown (" + rung.why + ")";
  std::string text = std::to_string(*rung.dropped);
  if (rung.parts.empty()) return text;
  text += " (";
  for (size_t i = 0; i < rung.parts.size(); ++i) {
    text += fmt::format("{}{} {}", i ? ", " : "", rung.parts[i].first, rung.parts[i].second);
  }
  return text + ")";
}

}  // namespace nicbench::analysis
