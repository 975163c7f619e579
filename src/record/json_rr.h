// JSON of the request/response members of the record (json_rr.cc); used by record/json.cc and
// by the report layer. Thread-safe pure functions.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "record/run_record.h"

namespace nicbench::record {

void to_json(nlohmann::json& j, const LatencySummary& v);
void from_json(const nlohmann::json& j, LatencySummary& v);
void to_json(nlohmann::json& j, const RrStats& v);
void from_json(const nlohmann::json& j, RrStats& v);
void to_json(nlohmann::json& j, const RrSummary& v);
void from_json(const nlohmann::json& j, RrSummary& v);

// The "rr" member of a spec, interval or record: written only when present.
void PutRrSpec(nlohmann::json& j, const RrSpec& v);
void ReadRrSpec(const nlohmann::json& j, RrSpec& v);
void PutOptionalRr(nlohmann::json& j, const std::optional<RrStats>& v);
void ReadOptionalRr(const nlohmann::json& j, std::optional<RrStats>& v);
void PutOptionalRr(nlohmann::json& j, const std::optional<RrSummary>& v);
void ReadOptionalRr(const nlohmann::json& j, std::optional<RrSummary>& v);

}  // namespace nicbench::record
