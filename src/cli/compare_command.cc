// `nicbench compare A B [--json|--csv] [--incomplete] [--store PATH]`: two sets of stored runs
// (selectors, see cli/selector.h), each metric's medians, spread and U test, then what differs. The
// figures and statistics come from analysis, the rendering from report.
#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "analysis/compare_sets.h"
#include "base/exit_code.h"
#include "base/log.h"
#include "cli/commands.h"
#include "cli/option_tables_tools.h"
#include "cli/parse_args.h"
#include "cli/selector.h"
#include "cli/store_options.h"
#include "report/compare_report.h"

namespace nicbench::cli {
namespace {

// A set: its runs resolved and loaded, or why not and the exit code that says so.
struct LoadedSet {
  std::vector<analysis::RunInput> inputs;
  report::SetName name;
  std::string error;
  ExitCode code = ExitCode::kOk;
};

// An incomplete run (interrupted) is half a test: it is left out unless asked for, and the
// user is told which runs a selector would have taken.
LoadedSet LoadSet(store::Store& store, const Selector& selector, bool incomplete) {
  LoadedSet set;
  auto resolved = Resolve(store, selector, incomplete);
  if (!resolved) return {{}, {}, resolved.error().message, ExitCode::kStore};
  if (resolved->runs.empty()) {
    return {{}, {}, NoRunsMessage(store, selector, resolved->left_out), ExitCode::kNotFound};
  }
  if (!resolved->left_out.empty()) {
    std::fprintf(stderr, "nicbench compare: %s\n",
                 LeftOutMessage(selector, resolved->left_out).c_str());
  }
  auto inputs = LoadInputs(store, resolved->runs);
  if (!inputs) return {{}, {}, inputs.error().message, ExitCode::kStore};
  set.inputs = std::move(*inputs);
  set.name = {selector.text, IdsOf(resolved->runs)};
  return set;
}

std::vector<const analysis::RunInput*> Pointers(const std::vector<analysis::RunInput>& inputs) {
  std::vector<const analysis::RunInput*> out;
  out.reserve(inputs.size());
  for (const auto& i : inputs) out.push_back(&i);
  return out;
}

}  // namespace

int RunCompareCommand(int argc, char** argv) {
  CLI::App app{
      "nicbench compare: compare two sets of stored runs, with a significance test and "
      "what differs between them",
      "compare"};
  CompareArgs args;
  AddRows(app, args, CompareSetRows());
  AddStoreOption(app, args.store);
  AddRows(app, args, CompareOutputRows());
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  ComparePlan plan;
  if (auto s = ApplyRows(args, CompareSetRows(), plan); !s) {
    LogError("nicbench compare: " + s.error().message);
    return ToInt(ExitCode::kUsage);
  }
  auto store = OpenForReading(args.store);
  if (!store) {
    LogError("nicbench compare: " + store.error().message);
    return ToInt(ExitCode::kStore);
  }
  LoadedSet set_a = LoadSet(**store, plan.a, args.incomplete);
  LoadedSet set_b = set_a.error.empty() ? LoadSet(**store, plan.b, args.incomplete) : LoadedSet{};
  for (const LoadedSet* set : {&set_a, &set_b}) {
    if (set->error.empty()) continue;
    LogError("nicbench compare: " + set->error);
    return ToInt(set->code);
  }
  const analysis::SetComparison c =
      analysis::CompareInputs(Pointers(set_a.inputs), Pointers(set_b.inputs));
  std::string out = args.json  ? report::RenderCompareJson(c, set_a.name, set_b.name)
                    : args.csv ? report::RenderCompareCsv(c)
                               : report::RenderCompareText(c, set_a.name, set_b.name);
  std::fputs(out.c_str(), stdout);
  return ToInt(ExitCode::kOk);
}

}  // namespace nicbench::cli
