#include "cli/matrix_runner.h"

#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "base/exit_code.h"
#include "base/log.h"
#include "cli/child_process.h"
#include "cli/selector.h"
#include "stand/change.h"
#include "stand/snapshot.h"

namespace nicbench::cli {
namespace {

using RoundVariant = std::pair<int, int>;  // both 1-based

int LabelNumber(const store::Labels& labels, const char* key) {
  const auto it = labels.find(key);
  if (it == labels.end()) return 0;
  try {
    return std::stoi(it->second);
  } catch (const std::exception&) {
    return 0;
  }
}

Result<std::vector<store::RunSummary>> ExperimentRuns(const MatrixContext& ctx) {
  store::RunQuery query;
  query.experiment = ctx.experiment;
  return ctx.store->Find(query);
}

Result<std::set<RoundVariant>> DoneRuns(const MatrixContext& ctx) {
  auto runs = ExperimentRuns(ctx);
  if (!runs) return tl::unexpected(runs.error());
  std::set<RoundVariant> done;
  for (const auto& r : *runs) {
    done.insert({LabelNumber(r.labels, "round"), LabelNumber(r.labels, "variant")});
  }
  return done;
}

std::string Where(const MatrixContext& ctx, int round, int v) {
  return fmt::format("variant {} ({}), round {}", v + 1, VariantName(ctx.variants[v]), round);
}

MatrixOutcome Failed(std::string message) {
  return {MatrixEnd::kFailed, std::move(message), ToInt(ExitCode::kTestFailed)};
}

// The stand spec a variant asks for: the stand's own, with the variant's toggles.
stand::StandSpec WantedSpec(const MatrixContext& ctx, const Variant& variant) {
  stand::StandSpec spec = ctx.stand->spec;
  for (size_t i = 0; i < variant.size(); ++i) {
    if (ctx.roles[i].kind != VaryKind::kStand) continue;
    const auto& [name, value] = variant[i];
    const stand::Toggle toggle = value == "on" ? stand::Toggle::kOn : stand::Toggle::kOff;
    if (name == "tso") spec.offloads.tso = toggle;
    if (name == "gso") spec.offloads.gso = toggle;
    if (name == "gro") spec.offloads.gro = toggle;
    if (name == "mtu") spec.mtu = std::stoi(value);
    if (name == "profile") spec.profile = *stand::ParseProfile(value);
    if (name == "queue") {
      auto kind = stand::ParseQueueKind(value);  // "fifo" is the shaper's own queue: none
      spec.queue = kind ? std::optional(*kind) : std::nullopt;
      if (kind) spec.queue_limit.reset();  // the kind replaces the FIFO it sizes
    }
  }
  return spec;
}

// Runs a --setup/--teardown command with the variant's values; "" when it succeeded.
std::string RunUserCommand(const char* which, const std::string& command, const Variant& v) {
  if (command.empty()) return "";
  const std::string text = Substitute(command, v);
  auto status = RunChild({"/bin/sh", "-c", text}, ChildStdout::kToStderr);
  if (!status) return fmt::format("{} could not run: {}", which, status.error().ToString());
  if (*status != 0) return fmt::format("{} exited with status {}: {}", which, *status, text);
  return "";
}

std::vector<std::string> ChildArgv(const MatrixContext& ctx, int round, int v) {
  std::vector<std::string> argv = {SelfPath(), "run"};
  for (std::string& a :
       RunArguments(ctx.definition.host, ctx.definition.run_options, ctx.variants[v], ctx.roles)) {
    argv.push_back(std::move(a));
  }
  argv.insert(argv.end(), {"--store", ctx.location});
  for (const auto& [key, value] : RunLabels(ctx.experiment, round, v + 1, ctx.variants[v])) {
    argv.insert(argv.end(), {"--label", key + "=" + value});
  }
  return argv;
}

// The stand as the matrix has set it so far.
struct StandTrack {
  stand::StandInfo current;  // its spec as last applied
  bool touched = false;      // some change was applied (or tried)
};

// One run of variant v in `round`: stand toggles, setup, the test, teardown.
std::optional<MatrixOutcome> RunOne(const MatrixContext& ctx, StandTrack* track, int round, int v) {
  const Variant& variant = ctx.variants[v];
  if (track != nullptr) {
    stand::StandInfo* current = &track->current;
    const stand::StandSpec wanted = WantedSpec(ctx, variant);
    stand::ProcessRunner runner;
    track->touched = true;
    if (auto s = stand::ApplyChange(runner, stand::BuildChangePlan(*current, wanted)); !s) {
      MatrixOutcome failed = Failed(
          fmt::format("{}: the stand's toggles: {}", Where(ctx, round, v), s.error().message));
      failed.exit_code = ToInt(ExitCode::kEnvironment);
      return failed;
    }
    current->spec = wanted;
    if (auto s = stand::RecordChange(*current); !s) {
      std::fprintf(stderr, "nicbench matrix: warning: the stand's state file: %s\n",
                   s.error().message.c_str());
    }
  }
  if (auto err = RunUserCommand("--setup", ctx.definition.setup, variant); !err.empty()) {
    if (TakeInterrupt()) return MatrixOutcome{MatrixEnd::kInterrupted, "", 130};
    return Failed(fmt::format("{}: {}", Where(ctx, round, v), err));
  }
  if (TakeInterrupt()) {
    (void)RunUserCommand("--teardown", ctx.definition.teardown, variant);
    return MatrixOutcome{MatrixEnd::kInterrupted, "", 130};
  }
  auto status = RunChild(ChildArgv(ctx, round, v), ChildStdout::kDiscard);
  const std::string teardown = RunUserCommand("--teardown", ctx.definition.teardown, variant);
  if (TakeInterrupt() || (status && *status == 130)) {
    return MatrixOutcome{MatrixEnd::kInterrupted, "", 130};
  }
  if (!status)
    return Failed(fmt::format("{}: {}", Where(ctx, round, v), status.error().ToString()));
  if (*status != 0) {
    return Failed(
        fmt::format("{}: nicbench run exited with status {}", Where(ctx, round, v), *status));
  }
  if (!teardown.empty()) return Failed(fmt::format("{}: {}", Where(ctx, round, v), teardown));
  return std::nullopt;
}

}  // namespace

namespace {

bool VariesShape(const MatrixContext& ctx) {
  for (const Vary& v : ctx.definition.varies) {
    if (v.name == "mtu" || v.name == "profile" || v.name == "queue") return true;
  }
  return false;
}

MatrixOutcome RunSchedule(const MatrixContext& ctx, const std::set<RoundVariant>& done,
                          StandTrack* track) {
  const int total = static_cast<int>(ctx.definition.schedule.size() * ctx.variants.size());
  int count = static_cast<int>(done.size());
  for (size_t r = 0; r < ctx.definition.schedule.size(); ++r) {
    const int round = static_cast<int>(r) + 1;
    for (const int v : ctx.definition.schedule[r]) {
      if (done.count({round, v + 1})) continue;
      if (TakeInterrupt()) return {MatrixEnd::kInterrupted, "", 130};
      std::fprintf(stderr, "nicbench matrix %lld: run %d/%d: %s\n",
                   static_cast<long long>(ctx.experiment), count + 1, total,
                   Where(ctx, round, v).c_str());
      if (auto outcome = RunOne(ctx, track, round, v)) return *outcome;
      ++count;
    }
  }
  return {};
}

// Puts the stand back as `before` after the runs, however they ended (SIGINT and SIGTERM are
// blocked here, and the ip/ethtool children inherit that, so a second Ctrl-C does not cut this
// short), and says so; false, with what the stand was left with, when it could not.
bool PutStandBack(const MatrixContext& ctx, const StandTrack& track,
                  const stand::StandSnapshot& before) {
  const std::string& name = before.info.spec.name;
  stand::ProcessRunner runner;
  auto s =
      stand::ApplyChange(runner, stand::BuildRestorePlan(track.current, before, VariesShape(ctx)));
  if (!s) {
    std::fprintf(stderr,
                 "nicbench matrix: could not put stand %s back as it was (%s); it is left as the "
                 "matrix last set it, at least in part: %s; `nicbench stand down --name %s`, "
                 "then `stand up` with its options, rebuilds it\n",
                 name.c_str(), s.error().message.c_str(),
                 stand::DescribeSpec(track.current.spec).c_str(), name.c_str());
    return false;
  }
  if (auto saved = stand::RecordChange(before.info); !saved) {
    std::fprintf(stderr, "nicbench matrix: warning: the stand's state file: %s\n",
                 saved.error().message.c_str());
  }
  std::fprintf(stderr, "nicbench matrix: stand %s put back as it was: %s\n", name.c_str(),
               stand::DescribeSnapshot(before).c_str());
  return true;
}

}  // namespace

MatrixOutcome RunRemaining(const MatrixContext& ctx) {
  auto done = DoneRuns(ctx);
  if (!done) return {MatrixEnd::kFailed, done.error().message, ToInt(ExitCode::kStore)};
  if (!ctx.stand) return RunSchedule(ctx, *done, nullptr);
  stand::ProcessRunner runner;
  auto before = stand::TakeSnapshot(runner, *ctx.stand);
  if (!before) {
    return {MatrixEnd::kFailed,
            "cannot read the stand's offloads, to put them back after the runs: " +
                before.error().message,
            ToInt(ExitCode::kEnvironment)};
  }
  StandTrack track{*ctx.stand, false};
  // The state file may predate what an earlier, interrupted matrix set: when MTU or profile
  // vary, the first run applies them whatever the state says.
  if (VariesShape(ctx)) track.current.spec.mtu = 0;
  MatrixOutcome outcome = RunSchedule(ctx, *done, &track);
  if (track.touched) outcome.stand_left_changed = !PutStandBack(ctx, track, *before);
  return outcome;
}

Result<report::MatrixTable> BuildTable(const MatrixContext& ctx) {
  auto runs = ExperimentRuns(ctx);
  if (!runs) return tl::unexpected(runs.error());
  auto inputs = LoadInputs(*ctx.store, *runs);
  if (!inputs) return tl::unexpected(inputs.error());
  std::vector<std::vector<const analysis::RunInput*>> by_variant(ctx.variants.size());
  for (size_t i = 0; i < runs->size(); ++i) {
    const int v = LabelNumber((*runs)[i].labels, "variant");
    if (v >= 1 && v <= static_cast<int>(by_variant.size())) {
      by_variant[v - 1].push_back(&(*inputs)[i]);
    }
  }
  report::MatrixTable table;
  table.experiment = ctx.experiment;
  table.seed = ctx.definition.seed;
  for (size_t v = 0; v < ctx.variants.size(); ++v) {
    table.variants.push_back(VariantName(ctx.variants[v]));
    table.versus_first.push_back(analysis::CompareInputs(by_variant[0], by_variant[v]));
  }
  return table;
}

Result<std::optional<report::MatrixTable>> StoredExperimentTable(store::Store& store, int64_t id) {
  auto found = store.GetExperiment(id);
  if (!found) return tl::unexpected(found.error());
  if (!*found) return std::optional<report::MatrixTable>();
  auto definition = DefinitionFromJson((*found)->definition);
  if (!definition) {
    return Fail(fmt::format("experiment {}: {}", id, definition.error().message));
  }
  MatrixContext ctx;
  ctx.store = &store;
  ctx.experiment = id;
  ctx.variants = CrossProduct(definition->varies);
  ctx.definition = std::move(*definition);
  auto table = BuildTable(ctx);
  if (!table) return tl::unexpected(table.error());
  return std::optional<report::MatrixTable>(std::move(*table));
}

}  // namespace nicbench::cli
