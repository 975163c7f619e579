// The HTML report's section of `run --under-load` (docs/latency.md): the probes' latency idle
// and loaded as a quantile plot, each end's queues over the test in milliseconds at their
// drain rate, stacked, so the place of the added delay shows over time, and the kept probe's
// one-way delay up and down as a quantile plot. The figures are
// analysis/under_load.h's.
#include <fmt/format.h>

#include "analysis/figures.h"
#include "analysis/under_load.h"
#include "report/html_chart.h"

namespace nicbench::report::html {
namespace {

constexpr double kQuantiles[] = {0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0};

enum class ProbeValue { kRequest, kConnect, kUp, kDown };

const std::optional<std::vector<record::LatencyBucket>>& BucketsOf(const record::RrStats& s,
                                                                   ProbeValue kind) {
  switch (kind) {
    case ProbeValue::kConnect: return s.connect_buckets;
    case ProbeValue::kUp: return s.up_buckets;
    case ProbeValue::kDown: return s.down_buckets;
    default: return s.latency_buckets;
  }
}

Json QuantileSeries(const std::string& label, const record::Measured<record::RrStats>& probes,
                    ProbeValue kind, bool dash) {
  Json s = Series(label, label, dash, false);
  const record::RrStats* stats = probes.get();
  const std::optional<std::vector<record::LatencyBucket>> none;
  const auto& buckets = stats == nullptr ? none : BucketsOf(*stats, kind);
  for (double q : kQuantiles) {
    const auto ms = buckets ? analysis::QuantileMs(*buckets, q)
                            : record::Measured<double>::Unknown(record::Missing::kNotReported);
    s["data"].push_back(ms.known() ? Json(Round(ms.value(), 3)) : Json(nullptr));
  }
  return s;
}

Json QuantileChart(const record::UnderLoad& u) {
  Json c = Chart("latency-quantiles", "Probe latency, idle and under load", "ms", false);
  c["note"] =
      "Each probe kind's latency at the quantile on the axis: a request on a kept "
      "connection, and a new connection's handshake.";
  for (double q : kQuantiles) {
    c["x"].push_back(q == 1.0 ? std::string("max") : fmt::format("p{:g}", q * 100));
  }
  c["series"].push_back(QuantileSeries("request, idle", u.idle.kept, ProbeValue::kRequest, true));
  c["series"].push_back(
      QuantileSeries("request, loaded", u.loaded.kept, ProbeValue::kRequest, false));
  c["series"].push_back(
      QuantileSeries("handshake, idle", u.idle.fresh, ProbeValue::kConnect, true));
  c["series"].push_back(
      QuantileSeries("handshake, loaded", u.loaded.fresh, ProbeValue::kConnect, false));
  return c;
}

// The kept probe's one-way delays, up and down, idle and loaded; null without timestamps.
Json OneWayChart(const record::UnderLoad& u, const analysis::OneWayFigures& w) {
  Json c = Chart("latency-one-way", "One-way delay, up and down", "ms", false);
  auto bound_text = [](const record::Measured<record::ClockOffset>& m) {
    return m.known() ? fmt::format("+- {:.3f} ms", m.value().bound_us / 1000)
                     : "unknown: " + m.detail();
  };
  c["note"] = fmt::format(
      "The kept connection's requests (up: client to server) and responses (down), each "
      "corrected by the clocks' offset (idle {}, loaded {}).",
      bound_text(w.idle_clock), bound_text(w.loaded_clock));
  for (double q : kQuantiles) {
    c["x"].push_back(q == 1.0 ? std::string("max") : fmt::format("p{:g}", q * 100));
  }
  c["series"].push_back(QuantileSeries("up, idle", u.idle.kept, ProbeValue::kUp, true));
  c["series"].push_back(QuantileSeries("up, loaded", u.loaded.kept, ProbeValue::kUp, false));
  c["series"].push_back(QuantileSeries("down, idle", u.idle.kept, ProbeValue::kDown, true));
  c["series"].push_back(QuantileSeries("down, loaded", u.loaded.kept, ProbeValue::kDown, false));
  return c;
}

// One end's root qdisc backlog at each sample, in ms at `bps`; null where not sampled.
Json QueueSeries(const std::string& label, const record::EndpointRecord& end, size_t count,
                 double bps) {
  Json s = Series(label, "queues", false, true);
  for (size_t i = 0; i < count; ++i) {
    const record::QueueSample* q = i < end.samples.size() ? end.samples[i].queues.get() : nullptr;
    s["data"].push_back(q != nullptr && bps > 0
                            ? Json(Round(static_cast<double>(q->backlog_bytes) * 8 / bps * 1000, 3))
                            : Json(nullptr));
  }
  return s;
}

Json QueueChart(const record::RunRecord& run, const analysis::UnderLoadFigures& f) {
  Json c = Chart("latency-queues", "Where the delay sits: each end's qdisc over time", "ms", true);
  c["note"] = fmt::format(
      "Each end's root qdisc backlog at the end of each interval, at the rate it drains. The "
      "load added {} to the probes; what no host's queue holds is in the network beyond them.",
      f.added_ms.known() ? fmt::format("{:.2f} ms", f.added_ms.value()) : "an unknown delay");
  c["x"] = TimeAxis(run.local.samples);
  const size_t n = run.local.samples.size();
  for (const analysis::QueueDelay& q : f.queues) {
    if (q.layer.rfind("qdisc", 0) != 0 || !q.drain_bits_per_second.known()) continue;
    const record::EndpointRecord* end =
        analysis::EndIn(run, q.end == "client" ? analysis::Role::kClient : analysis::Role::kServer);
    if (end == nullptr) continue;
    c["series"].push_back(
        QueueSeries(q.end + " " + q.layer, *end, n, q.drain_bits_per_second.value()));
  }
  return c;
}

}  // namespace

Json LatencySection(const record::RunRecord& run) {
  const analysis::UnderLoadFigures f = analysis::ComputeUnderLoad(run);
  std::string note = fmt::format(
      "Responsiveness {} idle, {} loaded ({} confidence), as the IETF draft computes it, "
      "adapted to TCP.",
      f.idle.rpm.known() ? fmt::format("{:.0f} RPM", f.idle.rpm.value()) : "unknown",
      f.loaded.rpm.known() ? fmt::format("{:.0f} RPM", f.loaded.rpm.value()) : "unknown",
      analysis::ConfidenceName(f.confidence));
  if (!f.unknown_why.empty()) note += " Foreign probes: " + f.unknown_why + ".";
  return {{"id", "latency"},
          {"title", "Latency under load"},
          {"note", note},
          {"charts", Json::array({QuantileChart(*run.under_load), QueueChart(run, f),
                                  OneWayChart(*run.under_load, f.one_way)})}};
}

}  // namespace nicbench::report::html
