#include "record/merge.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace nicbench::record {
namespace {

StreamInterval MergeStream(const StreamInterval& a, const StreamInterval& b) {
  StreamInterval m = b;  // id, sender, omitted, and TCP_INFO (cumulative fields): the later one
  m.start = a.start;
  m.bytes = a.bytes + b.bytes;
  m.retransmits = a.retransmits + b.retransmits;
  m.packets = a.packets + b.packets;
  m.lost = a.lost + b.lost;
  m.out_of_order = a.out_of_order + b.out_of_order;
  const double da = a.end - a.start, db = b.end - b.start;
  if (da + db > 0) m.jitter_seconds = (a.jitter_seconds * da + b.jitter_seconds * db) / (da + db);
  if (!m.tcp_info.known() && a.tcp_info.known()) m.tcp_info = a.tcp_info;
  m.transactions = a.transactions + b.transactions;
  return m;
}

// Two intervals' transaction times: counts add, the mean is exact, min and max are kept; the
// percentiles become the count-weighted means of the two (the histograms are not kept in the
// record), so a merged interval's percentiles are approximate.
std::optional<LatencySummary> MergeLatency(const std::optional<LatencySummary>& a,
                                           const std::optional<LatencySummary>& b) {
  if (!a || a->count == 0) return b;
  if (!b || b->count == 0) return a;
  const double wa = static_cast<double>(a->count), wb = static_cast<double>(b->count);
  auto mix = [&](double x, double y) { return (x * wa + y * wb) / (wa + wb); };
  LatencySummary m;
  m.count = a->count + b->count;
  m.mean_us = mix(a->mean_us, b->mean_us);
  m.min_us = std::min(a->min_us, b->min_us);
  m.max_us = std::max(a->max_us, b->max_us);
  m.p50_us = mix(a->p50_us, b->p50_us);
  m.p90_us = mix(a->p90_us, b->p90_us);
  m.p99_us = mix(a->p99_us, b->p99_us);
  m.p999_us = mix(a->p999_us, b->p999_us);
  return m;
}

std::optional<RrStats> MergeRr(const IntervalRecord& a, const IntervalRecord& b) {
  if (!a.rr) return b.rr;
  if (!b.rr) return a.rr;
  RrStats m;
  m.transactions = a.rr->transactions + b.rr->transactions;
  m.lost = a.rr->lost + b.rr->lost;
  m.late = a.rr->late + b.rr->late;
  m.seconds = b.end - a.start;
  m.latency = MergeLatency(a.rr->latency, b.rr->latency);
  m.connect = MergeLatency(a.rr->connect, b.rr->connect);
  m.up = MergeLatency(a.rr->up, b.rr->up);
  m.down = MergeLatency(a.rr->down, b.rr->down);
  return m;
}

// Both known: merged; otherwise the unknown side's reason.
template <typename T, typename F>
Measured<T> Both(const Measured<T>& a, const Measured<T>& b, F merge) {
  if (!a.known()) return a;
  if (!b.known()) return b;
  return merge(a.value(), b.value());
}

CpuShare Weighted(const CpuShare& a, const CpuShare& b, double wa, double wb) {
  auto mix = [&](double x, double y) { return (x * wa + y * wb) / (wa + wb); };
  CpuShare m;
  m.cpu = a.cpu;
  m.user = mix(a.user, b.user), m.nice = mix(a.nice, b.nice), m.system = mix(a.system, b.system);
  m.idle = mix(a.idle, b.idle), m.iowait = mix(a.iowait, b.iowait), m.irq = mix(a.irq, b.irq);
  m.softirq = mix(a.softirq, b.softirq), m.steal = mix(a.steal, b.steal);
  return m;
}

std::vector<uint64_t> AddColumns(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<uint64_t> m = a.size() >= b.size() ? a : b;
  const std::vector<uint64_t>& other = a.size() >= b.size() ? b : a;
  for (size_t i = 0; i < other.size(); ++i) m[i] += other[i];
  return m;
}

std::vector<IrqRate> AddIrqs(const std::vector<IrqRate>& a, const std::vector<IrqRate>& b,
                             double seconds) {
  std::map<std::pair<std::string, std::string>, IrqRate> lines;
  for (const auto* side : {&a, &b}) {
    for (const IrqRate& r : *side) {
      auto [it, fresh] = lines.try_emplace({r.irq, r.name}, r);
      if (fresh) continue;
      it->second.per_cpu = AddColumns(it->second.per_cpu, r.per_cpu);
      it->second.total += r.total;
    }
  }
  std::vector<IrqRate> m;
  for (auto& [key, r] : lines) {
    r.per_second = seconds > 0 ? static_cast<double>(r.total) / seconds : 0;
    m.push_back(std::move(r));
  }
  std::sort(m.begin(), m.end(),
            [](const IrqRate& x, const IrqRate& y) { return x.total > y.total; });
  return m;
}

template <typename Map>
Map AddMaps(const Map& a, const Map& b) {
  Map m = a;
  for (const auto& [key, value] : b) m[key] += value;
  return m;
}

void MergeCounts(const HostInterval& a, const HostInterval& b, HostInterval& m) {
  auto add = [](uint64_t x, uint64_t y) { return x + y; };
  m.context_switches = Both(a.context_switches, b.context_switches, add);
  m.interrupts = Both(a.interrupts, b.interrupts, add);
  m.net_rx_softirqs = Both(a.net_rx_softirqs, b.net_rx_softirqs, AddColumns);
  m.net_tx_softirqs = Both(a.net_tx_softirqs, b.net_tx_softirqs, AddColumns);
  m.softnet = Both(a.softnet, b.softnet, [](const auto& x, const auto& y) {
    std::vector<SoftnetDelta> s = x.size() >= y.size() ? x : y;
    const auto& other = x.size() >= y.size() ? y : x;
    for (size_t i = 0; i < other.size(); ++i) {
      s[i].processed += other[i].processed;
      s[i].dropped += other[i].dropped;
      s[i].time_squeeze += other[i].time_squeeze;
    }
    return s;
  });
  using Counters = std::map<std::string, int64_t>;
  m.net_counters = Both(a.net_counters, b.net_counters, AddMaps<Counters>);
  m.nic_counters = Both(a.nic_counters, b.nic_counters, AddMaps<Counters>);
  m.host_ip_bytes = Both(a.host_ip_bytes, b.host_ip_bytes, add);
}

void MergeProcess(const HostInterval& a, const HostInterval& b, HostInterval& m) {
  m.process = Both(a.process, b.process, [](const ProcessUsage& x, const ProcessUsage& y) {
    ProcessUsage p = y;  // allowed_cpus: the later
    p.user_seconds += x.user_seconds, p.system_seconds += x.system_seconds;
    p.voluntary_switches += x.voluntary_switches;
    p.involuntary_switches += x.involuntary_switches;
    p.minor_faults += x.minor_faults, p.major_faults += x.major_faults;
    // ran_on_cpus: where either half ran.
    p.ran_on_cpus.insert(p.ran_on_cpus.end(), x.ran_on_cpus.begin(), x.ran_on_cpus.end());
    std::sort(p.ran_on_cpus.begin(), p.ran_on_cpus.end());
    p.ran_on_cpus.erase(std::unique(p.ran_on_cpus.begin(), p.ran_on_cpus.end()),
                        p.ran_on_cpus.end());
    return p;
  });
  m.run_queue = Both(a.run_queue, b.run_queue, [](const RunQueueDelay& x, const RunQueueDelay& y) {
    return RunQueueDelay{x.on_cpu_seconds + y.on_cpu_seconds, x.waiting_seconds + y.waiting_seconds,
                         std::max(x.threads, y.threads)};
  });
}

}  // namespace

IntervalRecord MergeIntervals(const IntervalRecord& a, const IntervalRecord& b) {
  IntervalRecord m;
  m.start = a.start;
  m.end = b.end;
  m.omitted = a.omitted && b.omitted;
  for (const StreamInterval& s : b.streams) {
    auto it = std::find_if(a.streams.begin(), a.streams.end(),
                           [&](const StreamInterval& x) { return x.id == s.id; });
    m.streams.push_back(it == a.streams.end() ? s : MergeStream(*it, s));
  }
  m.rr = MergeRr(a, b);
  return m;
}

HostInterval MergeSamples(const HostInterval& a, const HostInterval& b) {
  HostInterval m;
  m.start = a.start;
  m.end = b.end;
  const double wa = std::max(a.end - a.start, 0.0), wb = std::max(b.end - b.start, 0.0);
  const bool weights = wa + wb > 0;
  m.cpus = Both(a.cpus, b.cpus, [&](const auto& x, const auto& y) {
    std::vector<CpuShare> c;
    for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
      c.push_back(weights ? Weighted(x[i], y[i], wa, wb) : y[i]);
    }
    return c;
  });
  m.cpu_total = Both(a.cpu_total, b.cpu_total, [&](const CpuShare& x, const CpuShare& y) {
    return weights ? Weighted(x, y, wa, wb) : y;
  });
  m.irqs =
      Both(a.irqs, b.irqs, [&](const auto& x, const auto& y) { return AddIrqs(x, y, wa + wb); });
  MergeCounts(a, b, m);
  MergeProcess(a, b, m);
  m.queues = b.queues;  // a moment, not a delta: the later one
  return m;
}

}  // namespace nicbench::record
