// JSON of a spec's request/response member and of RrStats' rate (json_rr.cc); RrStats and
// RrSummary have the rest of theirs in record/json.h. Thread-safe pure functions.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "record/json.h"
#include "record/run_record.h"

namespace nicbench::record {

// The "rr" member of a spec: written only for a request/response test.
void PutRrSpec(nlohmann::json& j, const RrSpec& v);
void ReadRrSpec(const nlohmann::json& j, RrSpec& v);

// RrStats' `transactions_per_second`: written from the counts (TransactionsPerSecond), so the
// output keeps its key; read only from a record written before `seconds` was kept, whose
// seconds it gives back (transactions / rate).
void PutRrRate(nlohmann::json& j, const RrStats& v);
void ReadRrRate(const nlohmann::json& j, RrStats& v);

}  // namespace nicbench::record
