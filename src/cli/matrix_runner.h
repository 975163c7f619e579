// Internal to the matrix command: running an experiment's remaining runs, and its result table.
#pragma once

#include <optional>
#include <string>

#include "cli/matrix_plan.h"
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

// How running the experiment ended.
enum class MatrixEnd { kFinished, kInterrupted, kFailed };
struct MatrixOutcome {
  MatrixEnd end = MatrixEnd::kFinished;
  std::string message;  // for kFailed: which variant, which command, its exit status
  int exit_code = 0;
  bool stand_left_changed = false;  // the stand's toggles could not be put back
};

// Runs every (round, variant) of the schedule not yet stored, in schedule order; each run is
// stored by its child as it finishes. Progress goes to stderr. On a stand, the offloads of every
// veth end are read first, and however the runs end (finished, failed, interrupted by SIGINT or
// SIGTERM) the stand is put back as it was and that is said on stderr, or, when that fails,
// what the stand was left with (stand_left_changed).
MatrixOutcome RunRemaining(const MatrixContext& ctx);

// Every stored run of the experiment, grouped by variant, each compared with the first.
Result<report::MatrixTable> BuildTable(const MatrixContext& ctx);
// The same table for experiment `id` from its stored definition alone (`nicbench report
// experiment:ID` draws what `matrix` printed: its variants' order, names and seed); nullopt when
// the store has no such experiment. A definition that does not read back is an error.
Result<std::optional<report::MatrixTable>> StoredExperimentTable(store::Store& store, int64_t id);

}  // namespace nicbench::cli
