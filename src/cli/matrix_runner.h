// Internal to the matrix command: an experiment's context, its remaining runs handed to the
// matrix job (job/matrix_job.h), and its result table.
#pragma once

#include <optional>
#include <string>

#include "cli/matrix_plan.h"
#include "job/matrix_job.h"
#include "report/compare_report.h"
#include "stand/stand.h"
#include "store/store.h"

namespace nicbench::cli {

struct MatrixContext {
  store::Store* store = nullptr;
  std::string location;  // the store, as children are told (--store)
  int64_t experiment = 0;
  MatrixDefinition definition;
  std::vector<VaryRole> roles;
  std::vector<Variant> variants;
  std::optional<stand::StandInfo> stand;  // set when stand toggles apply
};

using job::MatrixEnd;
using job::MatrixOutcome;

// The experiment's remaining runs (job/matrix_job.h), each a child `nicbench run ... --store
// LOCATION --label ...` of this binary, the user's --setup/--teardown through /bin/sh; progress
// and what happened to the stand on stderr.
MatrixOutcome RunRemaining(const MatrixContext& ctx);

// Every stored run of the experiment, grouped by variant, each compared with the first.
Result<report::MatrixTable> BuildTable(const MatrixContext& ctx);
// The same table for experiment `id` from its stored definition alone (`nicbench report
// experiment:ID` draws what `matrix` printed: its variants' order, names and seed); nullopt when
// the store has no such experiment. A definition that does not read back is an error.
Result<std::optional<report::MatrixTable>> StoredExperimentTable(store::Store& store, int64_t id);

}  // namespace nicbench::cli
