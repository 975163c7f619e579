// nicbench.stream_limits and nicbench.drop_ladder of the JSON report (docs/json-schema.md): the
// figures of analysis/stream_limits.h and analysis/drop_ladder.h as the text summary shows them.
#include "analysis/drop_ladder.h"
#include "analysis/stream_limits.h"
#include "report/json_parts.h"

namespace nicbench::report::json_parts {
namespace {

Json RungJson(const analysis::Rung& rung) {
  Json j{{"layer", rung.name}};
  if (rung.dropped) {
    j["dropped"] = *rung.dropped;
    Json parts = Json::object();
    for (const auto& [name, count] : rung.parts) parts[name] = count;
    j["parts"] = std::move(parts);
    j["source"] = rung.source;
  } else {
    j["dropped"] = nullptr;
    j["unknown"] = Json{{"dropped", rung.why}};
  }
  return j;
}

Json LadderJson(const record::RunRecord& run, const record::EndpointRecord& end) {
  Json rungs = Json::array();
  for (const analysis::Rung& rung : analysis::DropLadderOf(run, end))
    rungs.push_back(RungJson(rung));
  return rungs;
}

}  // namespace

Json StreamLimitsJson(const record::RunRecord& run) {
  Json out = Json::array();
  for (const analysis::StreamLimit& s : analysis::StreamLimits(run)) {
    out.push_back({{"id", s.id},
                   {"sender", s.local_sends ? "local" : "remote"},
                   {"limited_by", analysis::LimitName(s.limit)},
                   {"share", s.limit_share},
                   {"seconds", s.seconds},
                   {"busy_seconds", s.busy_seconds},
                   {"rwnd_limited_seconds", s.rwnd_limited_seconds},
                   {"sndbuf_limited_seconds", s.sndbuf_limited_seconds},
                   {"network_seconds", s.network_seconds},
                   {"application_seconds", s.application_seconds}});
  }
  return out;
}

Json DropLaddersJson(const record::RunRecord& run) {
  Json out{{"local", LadderJson(run, run.local)}};
  if (run.remote.known()) {
    out["remote"] = LadderJson(run, run.remote.value());
  } else {
    out["remote"] = nullptr;
    out["unknown"] = Json{{"remote", record::UnknownReason(run.remote.why(), run.remote.detail())}};
  }
  return out;
}

}  // namespace nicbench::report::json_parts
