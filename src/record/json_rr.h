// JSON of a spec's request/response member (json_rr.cc); RrStats and RrSummary have theirs in
// record/json.h. Thread-safe pure functions.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "record/json.h"
#include "record/run_record.h"

namespace nicbench::record {

// The "rr" member of a spec: written only for a request/response test.
void PutRrSpec(nlohmann::json& j, const RrSpec& v);
void ReadRrSpec(const nlohmann::json& j, RrSpec& v);

}  // namespace nicbench::record
