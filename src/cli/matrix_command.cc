// `nicbench matrix HOST --vary NAME=V1,V2 ... --repeat N [--setup CMD] [--teardown CMD]
// [--seed S] -- RUN-OPTIONS` and `nicbench matrix --resume ID`: an experiment over every
// combination of the --vary values, in interleaved rounds, each run a child `nicbench run`
// stored with the experiment's labels. The plan is matrix_plan.h, the running matrix_runner.h
// (handing the runs to job/matrix_job.h).
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "base/log.h"
#include "cli/child_process.h"
#include "cli/commands.h"
#include "cli/matrix_runner.h"
#include "cli/option_tables_tools.h"
#include "cli/parse_args.h"
#include "cli/run_arguments.h"
#include "cli/store_options.h"
#include "report/terminal_text.h"
#include "stand/change.h"

namespace nicbench::cli {
namespace {

void AddOptions(CLI::App& app, MatrixArgs& a) {
  AddRows(app, a, MatrixRows());
  AddStoreOption(app, a.store);
  AddRows(app, a, MatrixOutputRows());
  app.footer(
      "After `--`: the options every run gets (see nicbench run --help), e.g. -- -t 10 -P 2.\n"
      "Or: nicbench matrix --resume ID [--setup CMD] [--teardown CMD] [--store ...] to\n"
      "complete an interrupted experiment (its stored commands, repeated to confirm them).\n"
      "Each run is stored with the labels experiment=ID, round, variant and one per --vary\n"
      "name. A stand's toggles are put back as they were at the end, also on Ctrl-C.\n"
      "docs/compare.md");
}

// Splits argv at "--": what comes after are the run options every run gets.
std::vector<std::string> TakeRunOptions(int& argc, char** argv) {
  std::vector<std::string> rest;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) != "--") continue;
    for (int j = i + 1; j < argc; ++j) rest.emplace_back(argv[j]);
    argc = i;
    break;
  }
  return rest;
}

// A new experiment: the rows' values (`d`, ApplyRows), what they must hold together, a random
// seed unless one was given, and the options every run gets.
Result<MatrixDefinition> NewDefinition(const MatrixArgs& a, MatrixDefinition d,
                                       std::vector<std::string> options) {
  if (d.host.empty()) return Fail("a HOST is needed (or --resume ID)");
  if (d.varies.empty()) return Fail("at least one --vary NAME=V1,V2 is needed");
  if (a.repeat.empty()) return Fail("--repeat: needs a number of rounds, 1..1000");
  if (a.seed.empty()) {
    std::random_device device;
    d.seed = (static_cast<uint64_t>(device()) << 32) | device();
  }
  d.run_options = std::move(options);
  return d;
}

// The stand whose host HOST is, when a --vary name is a stand toggle; nullopt otherwise.
Result<std::optional<stand::StandInfo>> StandFor(const MatrixDefinition& d) {
  bool stand_names = false;
  for (const Vary& v : d.varies) stand_names = stand_names || IsStandToggle(v.name);
  if (!stand_names) return std::optional<stand::StandInfo>();
  auto stand = stand::StandWithAddress(d.host);
  if (!stand) return Fail("cannot read the test stands: " + stand.error().message);
  return stand;
}

// Roles, variants and the schedule for a definition; `stand` when HOST is a stand host.
Result<MatrixContext> Prepare(MatrixDefinition d, const std::optional<stand::StandInfo>& stand) {
  MatrixContext ctx;
  auto roles = Classify(d.varies, stand.has_value(), d.setup, d.teardown);
  if (!roles) return tl::unexpected(roles.error());
  for (const VaryRole& r : *roles) {
    if (r.kind == VaryKind::kStand) ctx.stand = stand;
  }
  ctx.roles = std::move(*roles);
  ctx.variants = CrossProduct(d.varies);
  // Every run's arguments pass run's own checks before anything runs, whether they came from
  // this argv or from a stored definition (which anyone who can write the store may have set).
  for (const Variant& v : ctx.variants) {
    if (auto problem =
            StoredRunArgumentsProblem(RunArguments(d.host, d.run_options, v, ctx.roles))) {
      return Fail(fmt::format("the run options of variant '{}': {}",
                              report::TerminalSafe(VariantName(v)),
                              report::TerminalSafe(*problem)));
    }
  }
  if (d.schedule.empty()) {
    d.schedule = Schedule(static_cast<int>(ctx.variants.size()), d.repeat, d.seed);
  }
  ctx.definition = std::move(d);
  return ctx;
}

int PrintTable(const MatrixContext& ctx, const MatrixArgs& a) {
  auto table = BuildTable(ctx);
  if (!table) {
    LogError("nicbench matrix: " + table.error().message);
    return ToInt(ExitCode::kStore);
  }
  const std::string out = a.json  ? report::RenderMatrixJson(*table)
                          : a.csv ? report::RenderMatrixCsv(*table)
                                  : report::RenderMatrixText(*table);
  std::fputs(out.c_str(), stdout);
  return ToInt(ExitCode::kOk);
}

int Finish(const MatrixContext& ctx, const MatrixArgs& a, const MatrixOutcome& outcome) {
  const char* state = outcome.end == MatrixEnd::kFinished      ? "finished"
                      : outcome.end == MatrixEnd::kInterrupted ? "interrupted"
                                                               : "failed";
  if (auto s = ctx.store->SetExperimentState(ctx.experiment, state); !s) {
    LogWarning("nicbench matrix: " + s.error().message);
  }
  if (outcome.end == MatrixEnd::kFinished) return PrintTable(ctx, a);
  if (outcome.end == MatrixEnd::kFailed) LogError("nicbench matrix: " + outcome.message);
  const bool commands = !ctx.definition.setup.empty() || !ctx.definition.teardown.empty();
  std::fprintf(stderr,
               "nicbench matrix: experiment %lld %s; the finished runs are stored; `nicbench "
               "matrix --resume %lld`%s completes the rest\n",
               static_cast<long long>(ctx.experiment), state,
               static_cast<long long>(ctx.experiment),
               commands ? " with the same --setup/--teardown" : "");
  return outcome.exit_code;
}

// The experiment to run: a new one from argv (stored now), or the one --resume names.
struct Started {
  std::optional<MatrixContext> ctx;
  int code = 0;  // when ctx is unset
};

Started Refuse(ExitCode code, const std::string& message) {
  LogError("nicbench matrix: " + message);
  return {std::nullopt, ToInt(code)};
}

// A resume runs the stored shell commands only when the person resuming typed them again: the
// store may be shared, and whoever can write it must not choose what runs here.
std::optional<std::string> UnconfirmedCommands(const MatrixDefinition& d, const MatrixArgs& a,
                                               int64_t id) {
  if (d.setup == a.setup && d.teardown == a.teardown) return std::nullopt;
  if (d.setup.empty() && d.teardown.empty()) {
    return fmt::format("experiment {} has no --setup or --teardown; resume it without them", id);
  }
  std::string text = fmt::format(
      "experiment {} runs shell commands around each run; they run only when you give them "
      "again, word for word, after reading them:\n",
      id);
  const std::pair<const char*, const std::string*> commands[] = {{"--setup", &d.setup},
                                                                 {"--teardown", &d.teardown}};
  for (const auto& [name, command] : commands) {
    if (!command->empty()) text += fmt::format("  {} {}\n", name, report::TerminalSafe(*command));
  }
  return text + fmt::format("e.g. nicbench matrix --resume {} --setup '...' --teardown '...'", id);
}

Started Resume(store::Store& store, const MatrixArgs& a, bool run_options) {
  if (!a.host.empty() || !a.vary.empty() || !a.repeat.empty() || run_options || !a.seed.empty()) {
    return Refuse(ExitCode::kUsage,
                  "--resume takes the experiment's own definition: no HOST, "
                  "--vary, --repeat, --seed or run options (only its --setup/--teardown, to "
                  "confirm them)");
  }
  int64_t id = 0;
  try {
    size_t used = 0;
    id = std::stoll(a.resume, &used);
    if (used != a.resume.size() || id <= 0) throw std::invalid_argument("id");
  } catch (const std::exception&) {
    return Refuse(ExitCode::kUsage,
                  fmt::format("--resume: '{}' is not an experiment id", a.resume));
  }
  auto found = store.GetExperiment(id);
  if (!found) return Refuse(ExitCode::kStore, found.error().message);
  if (!*found) {
    return Refuse(ExitCode::kNotFound, fmt::format("no experiment {} in {}", id, store.Describe()));
  }
  auto definition = DefinitionFromJson((*found)->definition);
  if (!definition) return Refuse(ExitCode::kStore, definition.error().message);
  if (auto unconfirmed = UnconfirmedCommands(*definition, a, id)) {
    return Refuse(ExitCode::kUsage, *unconfirmed);
  }
  auto stand = StandFor(*definition);
  if (!stand) return Refuse(ExitCode::kEnvironment, stand.error().message);
  auto ctx = Prepare(std::move(*definition), *stand);
  if (!ctx) return Refuse(ExitCode::kUsage, ctx.error().message);
  ctx->experiment = id;
  return {std::move(*ctx), 0};
}

Started Create(store::Store& store, const MatrixArgs& a, MatrixDefinition given,
               std::vector<std::string> options) {
  auto definition = NewDefinition(a, std::move(given), std::move(options));
  if (!definition) return Refuse(ExitCode::kUsage, definition.error().message);
  auto stand = StandFor(*definition);
  if (!stand) return Refuse(ExitCode::kEnvironment, stand.error().message);
  auto ctx = Prepare(std::move(*definition), *stand);
  if (!ctx) return Refuse(ExitCode::kUsage, ctx.error().message);
  auto id = store.PutExperiment(DefinitionToJson(ctx->definition));
  if (!id) return Refuse(ExitCode::kStore, id.error().message);
  ctx->experiment = *id;
  std::fprintf(stderr, "nicbench matrix: experiment %lld, %zu variants x %d rounds, seed %llu\n",
               static_cast<long long>(*id), ctx->variants.size(), ctx->definition.repeat,
               static_cast<unsigned long long>(ctx->definition.seed));
  return {std::move(*ctx), 0};
}

}  // namespace

int RunMatrixCommand(int argc, char** argv) {
  std::vector<std::string> run_options = TakeRunOptions(argc, argv);
  CLI::App app{
      "nicbench matrix: an experiment over every combination of --vary values, run in "
      "interleaved rounds and stored",
      "matrix"};
  MatrixArgs args;
  AddOptions(app, args);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  MatrixDefinition given;
  if (auto s = ApplyRows(args, MatrixRows(), given); !s) {
    return Refuse(ExitCode::kUsage, s.error().message).code;
  }
  auto location = ReadLocation(args.store);
  if (!location) return Refuse(ExitCode::kUsage, location.error().message).code;
  const bool resume = !args.resume.empty();
  auto opened =
      store::OpenStore(*location, resume ? store::OpenMode::kExisting : store::OpenMode::kCreate,
                       StoreBusyTimeout());
  if (!opened) return Refuse(ExitCode::kStore, opened.error().message).code;
  Started started = resume ? Resume(**opened, args, !run_options.empty())
                           : Create(**opened, args, std::move(given), std::move(run_options));
  if (!started.ctx) return started.code;
  MatrixContext& ctx = *started.ctx;
  ctx.store = opened->get();
  ctx.location = *location;
  BlockInterrupts();
  const MatrixOutcome outcome = RunRemaining(ctx);
  const int code = Finish(ctx, args, outcome);
  // A finished experiment whose stand could not be put back did not leave the machine as
  // asked: a script must not take it for a clean success.
  if (outcome.stand_left_changed && code == ToInt(ExitCode::kOk)) {
    return ToInt(ExitCode::kEnvironment);
  }
  return code;
}

}  // namespace nicbench::cli
