// `nicbench matrix HOST --vary NAME=V1,V2 ... --repeat N [--setup CMD] [--teardown CMD]
// [--seed S] -- RUN-OPTIONS` and `nicbench matrix --resume ID`: an experiment over every
// combination of the --vary values, in interleaved rounds, each run a child `nicbench run`
// stored with the experiment's labels. The plan is matrix_plan.h, the running matrix_runner.h.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "base/exit_code.h"
#include "base/log.h"
#include "cli/child_process.h"
#include "cli/commands.h"
#include "cli/matrix_runner.h"
#include "cli/parse_args.h"
#include "cli/store_access.h"
#include "stand/change.h"

namespace nicbench::cli {
namespace {

struct MatrixArgs {
  std::string host, setup, teardown, store, seed, resume;
  std::vector<std::string> vary;
  int repeat = 0;
  bool json = false, csv = false;
};

void AddOptions(CLI::App& app, MatrixArgs& a) {
  app.add_option("host", a.host, "the server every run tests against (nicbench serve)");
  app.add_option("--vary", a.vary,
                 "NAME=V1,V2,...: direction, streams, proto, a run option (-w, -C, ...), a\n"
                 "stand toggle on a stand link (tso, gso, gro, mtu, profile), or any name the\n"
                 "--setup/--teardown commands use as {NAME}; repeatable")
      ->take_all();
  app.add_option("--repeat", a.repeat, "rounds: every variant runs once per round (1..1000)");
  app.add_option("--setup", a.setup, "shell command run before each run, {NAME} replaced");
  app.add_option("--teardown", a.teardown, "shell command run after each run, {NAME} replaced");
  app.add_option("--seed", a.seed, "seed of the shuffled order (default: random; recorded)");
  app.add_option("--resume", a.resume, "complete the runs experiment ID still lacks");
  app.add_option("--store", a.store, "result store (SQLite path or postgresql:// URL)");
  auto* json = app.add_flag("--json", a.json, "the result table as one JSON document");
  app.add_flag("--csv", a.csv, "the result table as CSV")->excludes(json);
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

Result<MatrixDefinition> NewDefinition(const MatrixArgs& a, std::vector<std::string> options) {
  if (a.host.empty()) return Fail("a HOST is needed (or --resume ID)");
  if (a.vary.empty()) return Fail("at least one --vary NAME=V1,V2 is needed");
  if (a.repeat < 1 || a.repeat > 1000) return Fail("--repeat: needs a number of rounds, 1..1000");
  MatrixDefinition d;
  d.host = a.host;
  for (const std::string& text : a.vary) {
    auto v = ParseVary(text);
    if (!v) return tl::unexpected(v.error());
    d.varies.push_back(std::move(*v));
  }
  d.repeat = a.repeat;
  if (a.seed.empty()) {
    std::random_device device;
    d.seed = (static_cast<uint64_t>(device()) << 32) | device();
  } else {
    try {
      size_t used = 0;
      d.seed = std::stoull(a.seed, &used);
      if (used != a.seed.size()) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      return Fail(fmt::format("--seed: '{}' is not an unsigned integer", a.seed));
    }
  }
  d.setup = a.setup;
  d.teardown = a.teardown;
  d.run_options = std::move(options);
  return d;
}

// Roles, variants and the stand for a definition; `code` on failure.
Result<MatrixContext> Prepare(MatrixDefinition d) {
  bool stand_names = false;
  for (const Vary& v : d.varies) stand_names = stand_names || IsStandToggle(v.name);
  MatrixContext ctx;
  if (stand_names) {
    auto stand = stand::StandWithAddress(d.host);
    if (!stand) return tl::unexpected(stand.error());
    ctx.stand = *stand;
  }
  auto roles = Classify(d.varies, ctx.stand.has_value(), d.setup, d.teardown);
  if (!roles) return tl::unexpected(roles.error());
  bool any_stand_role = false;
  for (const VaryRole& r : *roles) any_stand_role = any_stand_role || r.kind == VaryKind::kStand;
  if (!any_stand_role) ctx.stand.reset();
  ctx.roles = std::move(*roles);
  ctx.variants = CrossProduct(d.varies);
  if (d.schedule.empty()) d.schedule = Schedule(static_cast<int>(ctx.variants.size()), d.repeat, d.seed);
  ctx.definition = std::move(d);
  return ctx;
}

int PrintTable(const MatrixContext& ctx, const MatrixArgs& a) {
  auto table = BuildTable(ctx);
  if (!table) {
    LogError("nicbench matrix: " + table.error().message);
    return ToInt(ExitCode::kEnvironment);
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
  std::fprintf(stderr,
               "nicbench matrix: experiment %lld %s; the finished runs are stored; `nicbench "
               "matrix --resume %lld` completes the rest\n",
               static_cast<long long>(ctx.experiment), state,
               static_cast<long long>(ctx.experiment));
  return outcome.exit_code;
}

}  // namespace

int RunMatrixCommand(int argc, char** argv) {
  std::vector<std::string> run_options = TakeRunOptions(argc, argv);
  CLI::App app{"nicbench matrix: an experiment over every combination of --vary values, run in "
               "interleaved rounds and stored",
               "matrix"};
  MatrixArgs args;
  AddOptions(app, args);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  auto usage = [](const std::string& m) {
    LogError("nicbench matrix: " + m);
    return ToInt(ExitCode::kUsage);
  };
  auto location = StoreLocation(args.store);
  if (!location) return usage(location.error().message);
  auto opened = OpenStoreFor(*location, !args.resume.empty());
  if (!opened) {
    LogError("nicbench matrix: " + opened.error().message);
    return ToInt(ExitCode::kEnvironment);
  }
  store::Store& store = **opened;
  Result<MatrixDefinition> definition = Fail("");
  int64_t experiment = 0;
  if (!args.resume.empty()) {
    if (!args.host.empty() || !args.vary.empty() || args.repeat || !run_options.empty()) {
      return usage("--resume takes the experiment's own definition: no HOST, --vary, --repeat "
                   "or run options");
    }
    try {
      experiment = std::stoll(args.resume);
    } catch (const std::exception&) {
      return usage(fmt::format("--resume: '{}' is not an experiment id", args.resume));
    }
    auto found = store.GetExperiment(experiment);
    if (!found) return usage(found.error().message);
    if (!*found) {
      LogError(fmt::format("nicbench matrix: no experiment {} in {}", experiment, store.Describe()));
      return ToInt(ExitCode::kTestFailed);
    }
    definition = DefinitionFromJson((*found)->definition);
  } else {
    definition = NewDefinition(args, run_options);
  }
  if (!definition) return usage(definition.error().message);
  auto ctx = Prepare(std::move(*definition));
  if (!ctx) return usage(ctx.error().message);
  ctx->store = &store;
  ctx->location = *location;
  if (experiment == 0) {
    auto id = store.PutExperiment(DefinitionToJson(ctx->definition));
    if (!id) {
      LogError("nicbench matrix: " + id.error().message);
      return ToInt(ExitCode::kEnvironment);
    }
    experiment = *id;
    std::fprintf(stderr, "nicbench matrix: experiment %lld, %zu variants x %d rounds, seed %llu\n",
                 static_cast<long long>(experiment), ctx->variants.size(),
                 ctx->definition.repeat, static_cast<unsigned long long>(ctx->definition.seed));
  }
  ctx->experiment = experiment;
  BlockInterrupts();
  return Finish(*ctx, args, RunRemaining(*ctx));
}

}  // namespace nicbench::cli
