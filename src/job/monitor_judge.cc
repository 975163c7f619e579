#include "job/monitor_judge.h"

#include <fmt/format.h>

#include <algorithm>

namespace nicbench::job {
namespace {

// Each kind of CPU work as the metrics name it (node_exporter's modes).
void AddCpuSeconds(std::map<std::string, double>& modes, const record::CpuShare& c,
                   double seconds) {
  const double f = seconds / 100.0;
  modes["user"] += c.user * f;
  modes["nice"] += c.nice * f;
  modes["system"] += c.system * f;
  modes["idle"] += c.idle * f;
  modes["iowait"] += c.iowait * f;
  modes["irq"] += c.irq * f;
  modes["softirq"] += c.softirq * f;
  modes["steal"] += c.steal * f;
}

double Mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

}  // namespace

const std::vector<double>& LatencyBounds() {
  static const std::vector<double> kBounds = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
  return kBounds;
}

MonitorJudge::MonitorJudge(const std::string& id, const std::string& peer,
                           const Thresholds& thresholds, const MonitorSinks& sinks)
    : sinks_(sinks),
      book_(id),
      host_(thresholds),
      peer_host_(thresholds, "peer "),
      tests_(thresholds),
      latency_(thresholds) {
  metrics_.peer = peer;
  metrics_.latency_bounds_seconds = LatencyBounds();
  metrics_.latency_buckets.assign(LatencyBounds().size(), 0);
  metrics_.open_events = book_.OpenByKind();
}

void MonitorJudge::Emit(std::string_view source, const std::vector<Condition>& now,
                        double at_unix) {
  for (const record::MonitorEvent& e : book_.Update(source, now, at_unix)) {
    if (!e.resolved) ++metrics_.events_opened;
    if (sinks_.event) sinks_.event(e);
  }
  metrics_.open_events = book_.OpenByKind();
}

void MonitorJudge::CountSample(const record::HostInterval& sample) {
  const double seconds = sample.end - sample.start;
  metrics_.samples += 1;
  if (const auto* cpus = sample.cpus.get()) {
    for (const record::CpuShare& c : *cpus) {
      AddCpuSeconds(metrics_.cpu_seconds[std::to_string(c.cpu)], c, seconds);
    }
  }
  if (const auto* irqs = sample.irqs.get()) {
    for (const record::IrqRate& line : *irqs) {
      metrics_.interrupts[line.irq + ":" + line.name] += line.total;
    }
  }
  if (const auto* softnet = sample.softnet.get()) {
    for (const record::SoftnetDelta& s : *softnet) {
      metrics_.softnet_processed += s.processed;
      metrics_.softnet_dropped += s.dropped;
      metrics_.softnet_time_squeezed += s.time_squeeze;
    }
  }
  if (const auto* nic = sample.nic_counters.get()) {
    for (const auto& [name, delta] : *nic)
      metrics_.nic_counters[name] += std::max<int64_t>(delta, 0);
  }
}

void MonitorJudge::OnSample(const record::HostInterval& sample, const std::string& iface,
                            const LinkState& link, double at_unix) {
  CountSample(sample);
  metrics_.nic = iface;
  std::vector<Condition> host = host_.Judge(sample);
  // A host's trouble is felt as latency: the probes taken while the condition held go with its
  // evidence (a window that ended before it began would say nothing of it).
  const double seconds = sample.end - sample.start;
  for (Condition& c : host) {
    const double since = at_unix - std::max(c.held_seconds, seconds);
    if (std::string line = latency_.During(since, at_unix); !line.empty())
      c.evidence.push_back("latency probe: " + line);
  }
  Emit("host", host, at_unix);
  if (!iface.empty()) Emit("link", link_.Judge(iface, link), at_unix);
  if (sinks_.metrics) sinks_.metrics(metrics_);
}

void MonitorJudge::OnTest(const engine::ClientOutcome& outcome, double at_unix) {
  ++metrics_.tests;
  if (!outcome.ok()) {
    ++metrics_.tests_failed;
    if (sinks_.metrics) sinks_.metrics(metrics_);
    return;
  }
  const record::RunRecord& run = outcome.record;
  const std::string direction = DirectionName(run);
  metrics_.goodput_bits_per_second[direction] = Mean(IntervalGoodputs(run));
  Emit("test:" + direction, tests_.Judge(run), at_unix);
  if (sinks_.run) {
    std::vector<Condition> store;
    if (Status s = sinks_.run(run); !s) {
      store.push_back(Condition{record::EventKind::kStoreUnavailable,
                                "store",
                                "a periodic test's run could not be stored",
                                {s.error().ToString()}});
    }
    Emit("store", store, at_unix);
  }
  if (sinks_.metrics) sinks_.metrics(metrics_);
}

void MonitorJudge::OnProbe(const ProbeWindow& window, double at_unix) {
  const std::vector<double>& bounds = LatencyBounds();
  for (const record::LatencyBucket& b : window.buckets) {
    const double seconds = b.us / 1e6;
    metrics_.latency_count += b.count;
    metrics_.latency_sum_seconds += seconds * static_cast<double>(b.count);
    for (size_t i = 0; i < bounds.size(); ++i) {
      if (seconds <= bounds[i]) metrics_.latency_buckets[i] += b.count;
    }
  }
  Emit("probe", latency_.Judge(window), at_unix);
  // The peer's samples came at the window's end: each judged in turn, as if live (a saturation
  // lasting longer than the threshold within one window opens its event at the window's end).
  metrics_.peer_samples += window.peer_samples.size();
  for (const record::HostInterval& sample : window.peer_samples) {
    // The samples were taken during this window: its probes are theirs.
    std::vector<Condition> peer = peer_host_.Judge(sample);
    if (!latency_.Latest().empty()) {
      for (Condition& c : peer) c.evidence.push_back("latency probe: " + latency_.Latest());
    }
    Emit("peer-host", peer, at_unix);
  }
  if (sinks_.metrics) sinks_.metrics(metrics_);
}

void MonitorJudge::OnProbeInterval(const ProbeInterval& interval, double at_unix) {
  latency_.Live(interval, at_unix);
}

void MonitorJudge::OnPeer(bool reached, const std::string& why, double at_unix) {
  std::vector<Condition> now;
  if (!reached) {
    now.push_back(Condition{record::EventKind::kPeerUnreachable,
                            metrics_.peer,
                            fmt::format("{} unreachable", metrics_.peer),
                            {why}});
  }
  Emit("peer", now, at_unix);
  if (sinks_.metrics) sinks_.metrics(metrics_);
}

}  // namespace nicbench::job
