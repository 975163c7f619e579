// Internal to store: what Put derives from a record for the indexed columns and the facts column.
// Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "record/run_record.h"
#include "store/store.h"

namespace nicbench::store {

// Every RunSummary member but id and labels.
RunSummary Summarize(const record::RunRecord& run);

// The RunFacts::facts document of a run (store.h).
nlohmann::json FactsOf(const record::RunRecord& run);

}  // namespace nicbench::store
