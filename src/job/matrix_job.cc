#include "job/matrix_job.h"

#include <set>
#include <utility>

#include <fmt/format.h>

#include "base/exit_code.h"
#include "stand/change.h"
#include "stand/snapshot.h"

namespace nicbench::job {
namespace {

using RoundVariant = std::pair<int, int>;  // both 1-based

Result<std::set<RoundVariant>> DoneRuns(const MatrixJobSpec& spec) {
  store::RunQuery query;
  query.experiment = spec.experiment;
  auto runs = spec.store->Find(query);
  if (!runs) return tl::unexpected(runs.error());
  std::set<RoundVariant> done;
  for (const auto& r : *runs) {
    done.insert({LabelNumber(r.labels, "round"), LabelNumber(r.labels, "variant")});
  }
  return done;
}

std::string Where(const MatrixJobSpec& spec, int round, int v) {
  return fmt::format("variant {} ({}), round {}", v + 1, spec.variants[v].name, round);
}

MatrixOutcome Failed(std::string message, ExitCode code = ExitCode::kTestFailed) {
  return {MatrixEnd::kFailed, std::move(message), ToInt(code)};
}

MatrixOutcome Interrupted() { return {MatrixEnd::kInterrupted, "", ToInt(ExitCode::kInterrupted)}; }

// The stand as the matrix has set it so far.
struct StandTrack {
  stand::StandInfo current;  // its spec as last applied
  bool touched = false;      // some change was applied (or tried)
};

// Sets the stand's toggles as variant v wants them; why not, or nullopt.
std::optional<MatrixOutcome> ApplyToggles(const MatrixJobSpec& spec, StandTrack& track,
                                          MatrixSteps& steps, int round, int v) {
  const stand::StandSpec& wanted = *spec.variants[v].stand;
  stand::ProcessRunner runner;
  track.touched = true;
  if (auto s = stand::ApplyChange(runner, stand::BuildChangePlan(track.current, wanted)); !s) {
    return Failed(
        fmt::format("{}: the stand's toggles: {}", Where(spec, round, v), s.error().message),
        ExitCode::kEnvironment);
  }
  track.current.spec = wanted;
  if (auto s = stand::RecordChange(track.current); !s) {
    steps.Note("warning: the stand's state file: " + s.error().message);
  }
  return std::nullopt;
}

// One run of variant v in `round`: stand toggles, setup, the test, teardown.
std::optional<MatrixOutcome> RunOne(const MatrixJobSpec& spec, StandTrack* track,
                                    MatrixSteps& steps, int round, int v) {
  if (track != nullptr) {
    if (auto failed = ApplyToggles(spec, *track, steps, round, v)) return failed;
  }
  if (auto err = steps.Setup(v); !err.empty()) {
    if (steps.Interrupted()) return Interrupted();
    return Failed(fmt::format("{}: {}", Where(spec, round, v), err));
  }
  if (steps.Interrupted()) {
    (void)steps.Teardown(v);
    return Interrupted();
  }
  auto status = steps.Test(round, v);
  const std::string teardown = steps.Teardown(v);
  if (steps.Interrupted() || (status && *status == ToInt(ExitCode::kInterrupted))) {
    return Interrupted();
  }
  if (!status)
    return Failed(fmt::format("{}: {}", Where(spec, round, v), status.error().ToString()));
  if (*status != 0) {
    return Failed(
        fmt::format("{}: nicbench run exited with status {}", Where(spec, round, v), *status));
  }
  if (!teardown.empty()) return Failed(fmt::format("{}: {}", Where(spec, round, v), teardown));
  return std::nullopt;
}

MatrixOutcome RunSchedule(const MatrixJobSpec& spec, const std::set<RoundVariant>& done,
                          StandTrack* track, MatrixSteps& steps) {
  const int total = static_cast<int>(spec.schedule.size() * spec.variants.size());
  int count = static_cast<int>(done.size());
  for (size_t r = 0; r < spec.schedule.size(); ++r) {
    const int round = static_cast<int>(r) + 1;
    for (const int v : spec.schedule[r]) {
      if (done.count({round, v + 1})) continue;
      if (steps.Interrupted()) return Interrupted();
      steps.Starting(count + 1, total, round, v);
      if (auto outcome = RunOne(spec, track, steps, round, v)) return *outcome;
      ++count;
    }
  }
  return {};
}

// Puts the stand back as `before` after the runs, however they ended, and says so; false, with
// what the stand was left with, when it could not. (`nicbench matrix` blocks SIGINT and SIGTERM,
// and the ip/ethtool children inherit that, so a second Ctrl-C does not cut this short.)
bool PutStandBack(const MatrixJobSpec& spec, const StandTrack& track,
                  const stand::StandSnapshot& before, MatrixSteps& steps) {
  const std::string& name = before.info.spec.name;
  stand::ProcessRunner runner;
  auto s =
      stand::ApplyChange(runner, stand::BuildRestorePlan(track.current, before, spec.varies_shape));
  if (!s) {
    steps.Note(fmt::format(
        "could not put stand {} back as it was ({}); it is left as the matrix last set it, at "
        "least in part: {}; `nicbench stand down --name {}`, then `stand up` with its options, "
        "rebuilds it",
        name, s.error().message, stand::DescribeSpec(track.current.spec), name));
    return false;
  }
  if (auto saved = stand::RecordChange(before.info); !saved) {
    steps.Note("warning: the stand's state file: " + saved.error().message);
  }
  steps.Note(fmt::format("stand {} put back as it was: {}", name, stand::DescribeSnapshot(before)));
  return true;
}

}  // namespace

int LabelNumber(const store::Labels& labels, const char* key) {
  const auto it = labels.find(key);
  if (it == labels.end()) return 0;
  try {
    return std::stoi(it->second);
  } catch (const std::exception&) {
    return 0;
  }
}

MatrixOutcome RunMatrix(const MatrixJobSpec& spec, MatrixSteps& steps) {
  auto done = DoneRuns(spec);
  if (!done) return {MatrixEnd::kFailed, done.error().message, ToInt(ExitCode::kStore)};
  if (!spec.stand) return RunSchedule(spec, *done, nullptr, steps);
  stand::ProcessRunner runner;
  auto before = stand::TakeSnapshot(runner, *spec.stand);
  if (!before) {
    return Failed("cannot read the stand's offloads, to put them back after the runs: " +
                      before.error().message,
                  ExitCode::kEnvironment);
  }
  StandTrack track{*spec.stand, false};
  if (spec.varies_shape) track.current.spec.mtu = 0;
  MatrixOutcome outcome = RunSchedule(spec, *done, &track, steps);
  if (track.touched) outcome.stand_left_changed = !PutStandBack(spec, track, *before, steps);
  return outcome;
}

}  // namespace nicbench::job
