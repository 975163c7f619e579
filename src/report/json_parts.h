// Internal to src/report: the pieces of the JSON report, each built from the record.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "record/json.h"
#include "record/run_record.h"

namespace nicbench::report::json_parts {

using Json = nlohmann::ordered_json;

// A double that may be unknown: the number, or null with the reason under obj["unknown"][key]
// (the record's unknown rule, docs/json-schema.md).
void PutNumber(Json& obj, const char* key, std::optional<double> value, const std::string& reason);

// A Measured value under the unknown rule.
template <typename T>
void PutMeasured(Json& obj, const char* key, const record::Measured<T>& m) {
  if (m.known()) {
    obj[key] = m.value();
    return;
  }
  obj[key] = nullptr;
  obj["unknown"][key] = record::UnknownReason(m.why(), m.detail());
}

// The same for a member iperf3 defines: iperf3 writes 0 there when it cannot know the value, and
// its parsers expect a number, so the member keeps iperf3's 0 and the truth goes beside it, the
// reason under obj["unknown"][key] (docs/json-schema.md, "iperf3's members").
void PutIperf3Number(Json& obj, const char* key, std::optional<double> value,
                     const std::string& reason);

template <typename T>
void PutIperf3Measured(Json& obj, const char* key, const record::Measured<T>& m) {
  if (m.known()) {
    obj[key] = m.value();
    return;
  }
  obj[key] = 0;
  obj["unknown"][key] = record::UnknownReason(m.why(), m.detail());
}

Json StartJson(const record::RunRecord& run);
Json IntervalsJson(const record::RunRecord& run);
Json EndJson(const record::RunRecord& run);

// json_limits.cc: nicbench.stream_limits (what limited each TCP stream, [] when unknown) and
// nicbench.drop_ladder ({"local": [rung...], "remote": [rung...] or null}).
Json StreamLimitsJson(const record::RunRecord& run);
Json DropLaddersJson(const record::RunRecord& run);
// json_latency.cc: nicbench.under_load (run --under-load), null without probes.
Json UnderLoadJson(const record::RunRecord& run);

// json_file.cc: iperf3's end.streams[].diskfile for a -F test (nothing without -F).
void PutDiskfile(Json& stream, const record::RunRecord& run, const record::StreamTotals& s);

}  // namespace nicbench::report::json_parts
