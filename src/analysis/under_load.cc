#include "analysis/under_load.h"

#include <algorithm>
#include <cmath>

#include "analysis/figures.h"

namespace nicbench::analysis {
namespace {

using record::Measured;
using record::Missing;

constexpr size_t kMad = 4;           // the draft's moving average distance, intervals
constexpr double kTolerance = 0.05;  // the draft's standard deviation tolerance

Measured<double> Unknown(Missing why, std::string detail) {
  return Measured<double>::Unknown(why, std::move(detail));
}

ProbeLatency LatencyOf(const std::optional<record::LatencySummary>& summary,
                       const std::optional<std::vector<record::LatencyBucket>>& buckets) {
  ProbeLatency p;
  if (!summary || summary->count == 0) {
    p.p50_ms = p.p90_ms = p.p99_ms = p.max_ms = p.trimmed_mean_ms =
        Unknown(Missing::kNotReported, "no probe answered");
    return p;
  }
  p.count = summary->count;
  p.p50_ms = summary->p50_us / 1000, p.p90_ms = summary->p90_us / 1000;
  p.p99_ms = summary->p99_us / 1000, p.max_ms = summary->max_us / 1000;
  p.trimmed_mean_ms = buckets ? TrimmedMeanMs(*buckets)
                              : Unknown(Missing::kNotReported, "the distribution was not kept");
  return p;
}

void FillPhase(const record::ProbePhase& phase, ProbeLatency& kept, ProbeLatency& connect) {
  const std::string why_kept = phase.kept.known() ? "" : phase.kept.detail();
  if (const record::RrStats* s = phase.kept.get()) {
    kept = LatencyOf(s->latency, s->latency_buckets);
  } else {
    kept = LatencyOf(std::nullopt, std::nullopt);
    kept.p50_ms = kept.trimmed_mean_ms = Unknown(phase.kept.why(), why_kept);
  }
  if (const record::RrStats* s = phase.fresh.get()) {
    connect = LatencyOf(s->connect, s->connect_buckets);
  } else {
    connect = LatencyOf(std::nullopt, std::nullopt);
    connect.p50_ms = connect.trimmed_mean_ms = Unknown(phase.fresh.why(), phase.fresh.detail());
  }
}

// A phase's clock offset; a record from before one-way delay has none and no reason.
Measured<record::ClockOffset> PhaseClock(const record::ProbePhase& phase) {
  if (phase.clock.known() || !phase.clock.detail().empty()) return phase.clock;
  return Measured<record::ClockOffset>::Unknown(Missing::kAbsent,
                                                "recorded before one-way delay was measured");
}

// One direction of one phase's kept probe: unknown with the phase's reason when its clock is.
ProbeLatency OneWayLatency(const record::ProbePhase& phase, bool up) {
  const record::RrStats* s = phase.kept.get();
  const Measured<record::ClockOffset> offset = PhaseClock(phase);
  if (s == nullptr || !offset.known() || !(up ? s->up : s->down)) {
    ProbeLatency p = LatencyOf(std::nullopt, std::nullopt);
    const std::string why = !offset.known() ? offset.detail()
                            : s == nullptr  ? phase.kept.detail()
                                            : "no timestamped answer";
    const Missing kind = !offset.known() ? offset.why() : Missing::kNotReported;
    p.p50_ms = p.p90_ms = p.p99_ms = p.max_ms = p.trimmed_mean_ms = Unknown(kind, why);
    return p;
  }
  return up ? LatencyOf(s->up, s->up_buckets) : LatencyOf(s->down, s->down_buckets);
}

Measured<double> AddedMs(const ProbeLatency& idle, const ProbeLatency& loaded) {
  if (!idle.trimmed_mean_ms.known()) return idle.trimmed_mean_ms;
  if (!loaded.trimmed_mean_ms.known()) return loaded.trimmed_mean_ms;
  return loaded.trimmed_mean_ms.value() - idle.trimmed_mean_ms.value();
}

Measured<double> MeanMs(const std::vector<uint32_t>& rtts_us) {
  if (rtts_us.empty()) return Unknown(Missing::kNotReported, "no TCP_INFO sample");
  double sum = 0;
  for (uint32_t r : rtts_us) sum += r;
  return sum / static_cast<double>(rtts_us.size()) / 1000;
}

std::vector<double> RpmPerInterval(const std::vector<uint32_t>& rtts_us) {
  std::vector<double> out;
  for (uint32_t r : rtts_us) {
    if (r > 0) out.push_back(RoundTripsPerMinute(r / 1000.0));
  }
  return out;
}

// The intervals a sending end recorded (the remote end's are in its record, the local one's in
// the run's when its record holds none); null when that end did not report.
const std::vector<record::IntervalRecord>* SenderIntervals(const record::RunRecord& run,
                                                           Role role) {
  const record::EndpointRecord* end = EndIn(run, role);
  if (end != nullptr && !end->intervals.empty()) return &end->intervals;
  return RoleOf(run.local) == role ? &run.intervals : nullptr;
}

// The load's own smoothed RTT at each counted interval, over its sending streams (the self
// probe): what the confidence is judged on when no foreign probe was answered.
std::vector<uint32_t> LoadRttsPerInterval(const record::RunRecord& run) {
  std::vector<uint32_t> out;
  for (Role role : {Role::kClient, Role::kServer}) {
    if (!DutyOf(role, run.spec.direction).sends) continue;
    const auto* intervals = SenderIntervals(run, role);
    if (intervals == nullptr) continue;
    for (const record::IntervalRecord& i : *intervals) {
      uint64_t sum = 0, n = 0;
      for (const record::StreamInterval& s : i.streams) {
        const record::TcpInfoSample* t = s.tcp_info.get();
        if (s.sender && t != nullptr && t->rtt_us > 0) sum += t->rtt_us, ++n;
      }
      if (!i.omitted && n > 0) out.push_back(static_cast<uint32_t>(sum / n));
    }
    break;  // one direction's intervals are enough to judge steadiness
  }
  return out;
}

// The rate an end's queues drain at: what it sends, else its shaper's rate.
Measured<double> DrainRate(const record::RunRecord& run, Role role) {
  const Duty duty = DutyOf(role, run.spec.direction);
  const bool local = RoleOf(run.local) == role;
  if (duty.sends) {
    const double bps = ReceiverBitsPerSecond(TotalsOf(run, local));
    if (bps > 0) return bps;
  }
  const record::EndpointRecord* end = EndIn(run, role);
  if (end != nullptr) {
    if (const record::Qdisc* q = end->nic.qdisc.get(); q && q->rate_bits_per_second > 0) {
      return static_cast<double>(q->rate_bits_per_second);
    }
  }
  return Unknown(Missing::kAbsent, "this end sends only acknowledgements");
}

QueueDelay Delay(std::string end, std::string layer, double bytes, int n,
                 const Measured<double>& rate) {
  QueueDelay d{std::move(end), std::move(layer), {}, {}, rate};
  if (n == 0) {
    d.bytes = d.ms = Unknown(Missing::kNotReported, "not sampled");
    return d;
  }
  d.bytes = bytes / n;
  if (d.bytes.value() == 0) {
    d.ms = 0.0;
  } else if (rate.known() && rate.value() > 0) {
    d.ms = d.bytes.value() * 8 / rate.value() * 1000;
  } else {
    d.ms = Unknown(rate.why(), rate.detail());
  }
  return d;
}

// One end's qdisc and device queues over the counted samples.
void AddEndQueues(const record::RunRecord& run, Role role, std::vector<QueueDelay>& out) {
  const record::EndpointRecord* end = EndIn(run, role);
  if (end == nullptr) return;
  double qdisc = 0, bql = 0;
  int n = 0, n_bql = 0;
  std::string kind;
  for (const record::HostInterval* s : CountedSamples(run, *end)) {
    const record::QueueSample* q = s->queues.get();
    if (q == nullptr) continue;
    qdisc += static_cast<double>(q->backlog_bytes), ++n;
    kind = q->qdisc;
    if (const uint64_t* b = q->bql_inflight_bytes.get()) bql += static_cast<double>(*b), ++n_bql;
  }
  if (n == 0) return;
  const Measured<double> rate = DrainRate(run, role);
  out.push_back(Delay(RoleName(role), "qdisc " + kind, qdisc, n, rate));
  if (n_bql > 0) out.push_back(Delay(RoleName(role), "device (BQL)", bql, n_bql, rate));
}

// The senders' unsent bytes (TCP_INFO notsent): a queue the load's own data waits in, not the
// probes' (their connections have their own sockets).
void AddSocketQueue(const record::RunRecord& run, std::vector<QueueDelay>& out) {
  for (Role role : {Role::kClient, Role::kServer}) {
    if (!DutyOf(role, run.spec.direction).sends) continue;
    const std::vector<record::IntervalRecord>* intervals = SenderIntervals(run, role);
    if (intervals == nullptr) continue;
    double sum = 0;
    int n = 0;
    for (const record::IntervalRecord& i : *intervals) {
      if (i.omitted) continue;
      double here = 0;
      bool any = false;
      for (const record::StreamInterval& s : i.streams) {
        const record::TcpInfoSample* t = s.tcp_info.get();
        if (!s.sender || t == nullptr) continue;
        here += t->notsent_bytes, any = true;
      }
      if (any) sum += here, ++n;
    }
    if (n > 0)
      out.push_back(
          Delay(RoleName(role), "sender's socket (unsent)", sum, n, DrainRate(run, role)));
  }
}

Measured<double> Beyond(const Measured<double>& added, const std::vector<QueueDelay>& queues) {
  if (!added.known()) return added;
  double explained = 0;
  for (const QueueDelay& q : queues) {
    // The sender's socket delays only the load's own data, not the probes' requests.
    if (q.layer.rfind("sender's socket", 0) == 0) continue;
    if (q.ms.known()) explained += q.ms.value();
  }
  return std::max(added.value() - explained, 0.0);
}

Measured<double> ProbeShare(const record::RunRecord& run, const record::UnderLoad& u) {
  uint64_t load = 0;
  for (const record::StreamTotals& s : run.streams)
    load += std::max(s.bytes_sent, s.bytes_received);
  if (load == 0) return Unknown(Missing::kNotReported, "no load bytes counted");
  return static_cast<double>(u.loaded.probe_bytes) / static_cast<double>(load);
}

}  // namespace

Measured<double> TrimmedMeanMs(const std::vector<record::LatencyBucket>& buckets, double keep) {
  uint64_t total = 0;
  for (const auto& b : buckets) total += b.count;
  if (total == 0) return Unknown(Missing::kNotReported, "no probe answered");
  const double kept = std::max(1.0, std::floor(static_cast<double>(total) * keep));
  double left = kept, sum = 0;
  for (const auto& b : buckets) {  // ascending
    const double take = std::min(left, static_cast<double>(b.count));
    sum += take * b.us;
    left -= take;
    if (left <= 0) break;
  }
  return sum / kept / 1000;
}

Measured<double> QuantileMs(const std::vector<record::LatencyBucket>& buckets, double quantile) {
  uint64_t total = 0;
  for (const auto& b : buckets) total += b.count;
  if (total == 0) return Unknown(Missing::kNotReported, "no probe answered");
  const double rank = std::max(1.0, std::ceil(quantile * static_cast<double>(total)));
  uint64_t seen = 0;
  for (const auto& b : buckets) {
    seen += b.count;
    if (static_cast<double>(seen) >= rank) return b.us / 1000;
  }
  return buckets.back().us / 1000;
}

const char* ConfidenceName(Confidence c) {
  switch (c) {
    case Confidence::kLow: return "low";
    case Confidence::kMedium: return "medium";
    case Confidence::kHigh: return "high";
  }
  return "low";
}

Confidence ConfidenceOf(const std::vector<double>& rpm) {
  if (rpm.size() < kMad) return Confidence::kLow;
  if (rpm.size() < 2 * kMad - 1) return Confidence::kMedium;
  std::vector<double> moving;  // the moving averages ending at each of the last MAD intervals
  for (size_t end = rpm.size() - kMad + 1; end <= rpm.size(); ++end) {
    double sum = 0;
    for (size_t i = end - kMad; i < end; ++i) sum += rpm[i];
    moving.push_back(sum / kMad);
  }
  double mean = 0;
  for (double m : moving) mean += m;
  mean /= static_cast<double>(moving.size());
  double var = 0;
  for (double m : moving) var += (m - mean) * (m - mean);
  const double sd = std::sqrt(var / static_cast<double>(moving.size()));
  return sd <= kTolerance * moving.back() ? Confidence::kHigh : Confidence::kMedium;
}

double RoundTripsPerMinute(double round_trip_ms) {
  return round_trip_ms > 0 ? 60000.0 / round_trip_ms : 0.0;
}

Responsiveness ResponsivenessOf(const Measured<double>& tcp_f, const Measured<double>& http_f,
                                const Measured<double>& http_l) {
  Responsiveness r;
  if (tcp_f.known() && http_f.known() && tcp_f.value() + http_f.value() > 0) {
    r.foreign_rpm = RoundTripsPerMinute((tcp_f.value() + http_f.value()) / 2);
  } else {
    r.foreign_rpm = Unknown(Missing::kNotReported, "no foreign probe answered");
  }
  if (http_l.known() && http_l.value() > 0) {
    r.loaded_rpm = RoundTripsPerMinute(http_l.value());
  } else {
    r.loaded_rpm = Unknown(Missing::kNotReported, "no TCP_INFO RTT of the load");
  }
  if (r.foreign_rpm.known() && r.loaded_rpm.known()) {
    r.rpm = (r.foreign_rpm.value() + r.loaded_rpm.value()) / 2;
  } else {
    r.rpm = r.loaded_rpm.known() ? r.loaded_rpm : r.foreign_rpm;  // the one measured, or why not
  }
  return r;
}

OneWayFigures OneWayOf(const record::UnderLoad& u) {
  OneWayFigures f;
  f.idle_clock = PhaseClock(u.idle);
  f.loaded_clock = PhaseClock(u.loaded);
  f.idle_up = OneWayLatency(u.idle, true);
  f.idle_down = OneWayLatency(u.idle, false);
  f.loaded_up = OneWayLatency(u.loaded, true);
  f.loaded_down = OneWayLatency(u.loaded, false);
  f.added_up_ms = AddedMs(f.idle_up, f.loaded_up);
  f.added_down_ms = AddedMs(f.idle_down, f.loaded_down);
  const Measured<record::ClockOffset>& idle = f.idle_clock;
  const Measured<record::ClockOffset>& loaded = f.loaded_clock;
  if (!idle.known() || !loaded.known()) {
    f.added_bound_ms =
        idle.known() ? Unknown(loaded.why(), loaded.detail()) : Unknown(idle.why(), idle.detail());
  } else if (loaded.value().carried) {
    f.added_bound_ms = 0.0;
  } else {
    f.added_bound_ms = (idle.value().bound_us + loaded.value().bound_us) / 1000;
  }
  return f;
}

UnderLoadFigures ComputeUnderLoad(const record::RunRecord& run) {
  UnderLoadFigures f;
  if (!run.under_load) return f;
  const record::UnderLoad& u = *run.under_load;
  FillPhase(u.idle, f.idle_kept, f.idle_connect);
  FillPhase(u.loaded, f.loaded_kept, f.loaded_connect);
  if (!u.loaded.kept.known()) f.unknown_why = u.loaded.kept.detail();
  f.idle_rtt_ms = MeanMs(u.idle.kept_rtt_us);
  const Measured<double> load_rtt_us = ComputeFigures(run).mean_rtt_us;
  f.loaded_rtt_ms =
      load_rtt_us.known() ? Measured<double>(load_rtt_us.value() / 1000) : load_rtt_us;
  // Trimmed means, not medians: the queue's backlog is averaged over the test too.
  if (f.idle_kept.trimmed_mean_ms.known() && f.loaded_kept.trimmed_mean_ms.known()) {
    f.added_ms =
        std::max(f.loaded_kept.trimmed_mean_ms.value() - f.idle_kept.trimmed_mean_ms.value(), 0.0);
  } else if (f.idle_rtt_ms.known() && f.loaded_rtt_ms.known()) {
    f.added_ms = std::max(f.loaded_rtt_ms.value() - f.idle_rtt_ms.value(), 0.0);
  } else {
    f.added_ms = Unknown(Missing::kNotReported, "no idle and loaded latency to compare");
  }
  // Idle: no load runs, so the kept probe's own RTT stands for the draft's self probe.
  f.idle =
      ResponsivenessOf(f.idle_connect.trimmed_mean_ms, f.idle_kept.trimmed_mean_ms, f.idle_rtt_ms);
  f.loaded = ResponsivenessOf(f.loaded_connect.trimmed_mean_ms, f.loaded_kept.trimmed_mean_ms,
                              f.loaded_rtt_ms);
  f.confidence = ConfidenceOf(RpmPerInterval(u.loaded.kept_rtt_us.empty() ? LoadRttsPerInterval(run)
                                                                          : u.loaded.kept_rtt_us));
  for (Role role : {Role::kClient, Role::kServer}) AddEndQueues(run, role, f.queues);
  AddSocketQueue(run, f.queues);
  f.beyond_ms = Beyond(f.added_ms, f.queues);
  f.probe_share = ProbeShare(run, u);
  f.one_way = OneWayOf(u);
  return f;
}

}  // namespace nicbench::analysis
