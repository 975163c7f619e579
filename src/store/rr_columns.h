// Internal to store: the request/response columns of `runs` (schema version 4, docs/store.md),
// written once here for Put, the migration's recomputation and the readers. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "store/sql.h"
#include "store/store.h"

namespace nicbench::store {

// "rr_mode, rr_tps, ..., rr_server_host_us_per_tx": the columns in the order of the functions
// below.
const std::string& RrColumns();
const std::vector<std::string>& RrColumnNames();
size_t RrColumnCount();

// The DDL that adds them ("ALTER TABLE runs ADD COLUMN ..."), {real} for the dialect's type.
std::vector<std::string> RrColumnDdl();

// A summary's values for RrColumns() (NULL where unknown; mode "" for a bulk run).
std::vector<SqlValue> RrColumnValues(const RunSummary& s);
// The figures from a row whose RrColumns() start at `first`.
RunSummary::Rr RrFromRow(const SqlRow& row, size_t first);

}  // namespace nicbench::store
