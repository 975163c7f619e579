// The matrix job (`nicbench matrix`, docs/store.md): an experiment's runs not yet stored, in the
// order of its schedule, each variant's stand toggles applied before its run, and the stand put
// back as it was after the last one, however the runs ended (finished, failed, interrupted). A
// spec in, how it ended out. The runs themselves and the user's commands around them are the
// caller's (MatrixSteps): `nicbench matrix` runs each as a child `nicbench run` that stores
// itself with the experiment's labels, so a matrix run is exactly a user's run.
//
// Thread safety: one thread; the steps are called on it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "stand/stand.h"
#include "store/store.h"

namespace nicbench::job {

struct MatrixVariant {
  std::string name;                       // "tso=on direction=forward", for progress and errors
  std::optional<stand::StandSpec> stand;  // with stand toggles: the stand as this variant wants it
};

struct MatrixJobSpec {
  int64_t experiment = 0;
  std::vector<MatrixVariant> variants;
  std::vector<std::vector<int>> schedule;  // per round, the 0-based variants in their order
  // The stand whose toggles vary (every variant's `stand` set); nullopt when none do.
  std::optional<stand::StandInfo> stand;
  // MTU or profile vary: the first run applies them whatever the stand's state file says (it
  // may predate what an earlier, interrupted matrix set), and putting back rebuilds the shape.
  bool varies_shape = false;
  // The store the runs go to: a (round, variant) it holds for the experiment (labels "round"
  // and "variant", 1-based) is not run again. REQUIRES: not null.
  store::Store* store = nullptr;
};

// What the caller does for the job.
class MatrixSteps {
 public:
  virtual ~MatrixSteps() = default;
  // The user's --setup (before) or --teardown (after) variant `v`'s run: "" when it succeeded
  // or there is none, else why it failed.
  virtual std::string Setup(int v) = 0;
  virtual std::string Teardown(int v) = 0;
  // Runs variant `v` of `round` (1-based) and stores it: its exit status (130: interrupted), or
  // why it could not run.
  virtual Result<int> Test(int round, int v) = 0;
  // True when the user asked to stop (SIGINT, SIGTERM) since the last call; consumes it.
  virtual bool Interrupted() = 0;
  // Run `count` (1-based) of `total` is about to start, for the progress log.
  virtual void Starting(int count, int total, int round, int v) = 0;
  // What happened to the stand: a warning, that it was put back, or what it was left with.
  virtual void Note(const std::string& text) = 0;
};

// How running the experiment ended.
enum class MatrixEnd { kFinished, kInterrupted, kFailed };
struct MatrixOutcome {
  MatrixEnd end = MatrixEnd::kFinished;
  std::string message;  // for kFailed: which variant, which command, its exit status
  int exit_code = 0;
  bool stand_left_changed = false;  // the stand's toggles could not be put back
};

// Runs every (round, variant) of the schedule not yet stored, in schedule order. On a stand, the
// offloads of every veth end are read first, and the stand is put back as it was at the end
// (stand_left_changed when that failed).
MatrixOutcome RunMatrix(const MatrixJobSpec& spec, MatrixSteps& steps);

// The number a run's label holds ("round", "variant"), 0 when it is absent or not a number.
int LabelNumber(const store::Labels& labels, const char* key);

}  // namespace nicbench::job
