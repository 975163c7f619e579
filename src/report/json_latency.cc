// nicbench.under_load of the JSON report (docs/json-schema.md, docs/latency.md): the probes as
// recorded (record::UnderLoad, under "probes") and the figures of analysis/under_load.h as the
// text summary shows them, each unknown one with its reason.
#include "analysis/under_load.h"
#include "report/json_parts.h"

namespace nicbench::report::json_parts {
namespace {

Json ProbeJson(const analysis::ProbeLatency& p) {
  Json j{{"count", p.count}};
  PutMeasured(j, "p50_ms", p.p50_ms);
  PutMeasured(j, "p90_ms", p.p90_ms);
  PutMeasured(j, "p99_ms", p.p99_ms);
  PutMeasured(j, "max_ms", p.max_ms);
  PutMeasured(j, "trimmed_mean_ms", p.trimmed_mean_ms);
  return j;
}

Json ResponsivenessJson(const analysis::Responsiveness& r) {
  Json j = Json::object();
  PutMeasured(j, "rpm", r.rpm);
  PutMeasured(j, "foreign_rpm", r.foreign_rpm);
  PutMeasured(j, "loaded_rpm", r.loaded_rpm);
  return j;
}

Json QueuesJson(const std::vector<analysis::QueueDelay>& queues) {
  Json out = Json::array();
  for (const analysis::QueueDelay& q : queues) {
    Json j{{"end", q.end}, {"layer", q.layer}};
    PutMeasured(j, "bytes", q.bytes);
    PutMeasured(j, "ms", q.ms);
    PutMeasured(j, "drain_bits_per_second", q.drain_bits_per_second);
    out.push_back(std::move(j));
  }
  return out;
}

void PutClock(Json& obj, const char* key, const record::Measured<record::ClockOffset>& offset) {
  if (!offset.known()) {
    obj[key] = nullptr;
    obj["unknown"][key] = record::UnknownReason(offset.why(), offset.detail());
    return;
  }
  const record::ClockOffset& c = offset.value();
  obj[key] = {{"offset_ms", c.offset_us / 1000},
              {"bound_ms", c.bound_us / 1000},
              {"exchanges", c.exchanges},
              {"kept", c.kept},
              {"carried", c.carried}};
}

// Up and down, idle and loaded, and what the load added to each; null members with reasons
// under "unknown" when the server did not timestamp.
Json OneWayJson(const analysis::OneWayFigures& w) {
  Json j{{"idle", {{"up", ProbeJson(w.idle_up)}, {"down", ProbeJson(w.idle_down)}}},
         {"loaded", {{"up", ProbeJson(w.loaded_up)}, {"down", ProbeJson(w.loaded_down)}}}};
  PutClock(j, "idle_clock", w.idle_clock);
  PutClock(j, "loaded_clock", w.loaded_clock);
  PutMeasured(j, "added_up_ms", w.added_up_ms);
  PutMeasured(j, "added_down_ms", w.added_down_ms);
  PutMeasured(j, "added_bound_ms", w.added_bound_ms);
  return j;
}

}  // namespace

Json UnderLoadJson(const record::RunRecord& run) {
  if (!run.under_load) return Json(nullptr);
  const analysis::UnderLoadFigures f = analysis::ComputeUnderLoad(run);
  Json j{{"probes", Json(nlohmann::json(*run.under_load))},
         {"idle", {{"kept", ProbeJson(f.idle_kept)}, {"connect", ProbeJson(f.idle_connect)}}},
         {"loaded", {{"kept", ProbeJson(f.loaded_kept)}, {"connect", ProbeJson(f.loaded_connect)}}},
         {"responsiveness",
          {{"idle", ResponsivenessJson(f.idle)},
           {"loaded", ResponsivenessJson(f.loaded)},
           {"confidence", analysis::ConfidenceName(f.confidence)}}},
         {"queues", QueuesJson(f.queues)},
         {"one_way", OneWayJson(f.one_way)}};
  PutMeasured(j, "idle_rtt_ms", f.idle_rtt_ms);
  PutMeasured(j, "loaded_rtt_ms", f.loaded_rtt_ms);
  PutMeasured(j, "added_ms", f.added_ms);
  PutMeasured(j, "beyond_ms", f.beyond_ms);
  PutMeasured(j, "probe_share", f.probe_share);
  if (!f.unknown_why.empty()) j["foreign_probes_unknown"] = f.unknown_why;
  return j;
}

}  // namespace nicbench::report::json_parts
