// `nicbench report SELECTOR... -o FILE.html [--store PATH]`: stored runs as a self-contained
// HTML page (docs/report.md). One run: its full report. Several runs of one set with the same
// labels: each run's full report, one after the other. Several sets (one per selector, the first
// the baseline as compare's A), an experiment (its variants as `matrix` printed them) or one
// set's runs grouped by their labels: the comparison page, a bar chart per metric.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "analysis/compare_sets.h"
#include "base/exit_code.h"
#include "base/log.h"
#include "cli/commands.h"
#include "cli/matrix_runner.h"
#include "cli/option_tables_tools.h"
#include "cli/output_options.h"
#include "cli/parse_args.h"
#include "cli/selector.h"
#include "cli/store_options.h"
#include "report/html_report.h"

namespace nicbench::cli {
namespace {

// A failure with the exit code that tells it apart.
struct Failure {
  std::string message;
  ExitCode code;
};

// One group of runs drawn as one variant.
struct Group {
  std::string name;
  std::vector<store::RunSummary> runs;
};

// The name of a run's variant: its labels but the bookkeeping ones of an experiment.
std::string VariantOf(const store::RunSummary& run) {
  std::string name;
  for (const auto& [key, value] : run.labels) {
    if (key == "experiment" || key == "variant" || key == "round") continue;
    name += (name.empty() ? "" : " ") + key + "=" + value;
  }
  return name.empty() ? "runs" : name;
}

// Runs oldest first (the store gives newest first), each selector's its own group or, for one
// selector, grouped by variant. A selector without runs is a Failure (kNotFound).
tl::expected<std::vector<Group>, Failure> Groups(store::Store& store,
                                                 const std::vector<Selector>& selectors) {
  std::vector<Group> groups;
  std::map<std::string, size_t> by_name;
  for (const Selector& selector : selectors) {
    // One run named by its id is drawn whole or not (an interrupted one says so on its page);
    // sets leave incomplete runs out, as compare does.
    store::RunQuery query = selector.query;
    query.include_incomplete = selector.single && selectors.size() == 1;
    auto runs = store.Find(query);
    if (!runs) return tl::unexpected(Failure{runs.error().message, ExitCode::kStore});
    if (runs->empty()) {
      return tl::unexpected(Failure{
          fmt::format("selector '{}' matches no run in {}", selector.text, store.Describe()),
          ExitCode::kNotFound});
    }
    for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
      const std::string name = selectors.size() > 1 ? selector.text : VariantOf(*it);
      auto [slot, fresh] = by_name.try_emplace(name, groups.size());
      if (fresh) groups.push_back({name, {}});
      groups[slot->second].runs.push_back(*it);
    }
  }
  return groups;
}

tl::expected<std::string, Failure> RenderRuns(store::Store& store,
                                              const std::vector<store::RunSummary>& runs) {
  auto stored = store.GetMany(IdsOf(runs));
  if (!stored) return tl::unexpected(Failure{stored.error().message, ExitCode::kStore});
  std::vector<const record::RunRecord*> records;
  for (const auto& s : *stored) records.push_back(&s.record);
  return report::RenderHtml(records);
}

// Several groups, each compared with the first. Several selectors are sets as compare takes
// them (the first is A, the baseline) and the page names them; one selector's groups are
// variants named by their labels.
tl::expected<std::string, Failure> RenderGroups(store::Store& store,
                                                const std::vector<Group>& groups, bool named_sets,
                                                const std::string& title) {
  std::vector<std::vector<analysis::RunInput>> inputs;
  std::vector<report::SetName> sets;
  for (const Group& g : groups) {
    auto loaded = LoadInputs(store, g.runs);
    if (!loaded) return tl::unexpected(Failure{loaded.error().message, ExitCode::kStore});
    inputs.push_back(std::move(*loaded));
    std::vector<int64_t> ids = IdsOf(g.runs);
    std::reverse(ids.begin(), ids.end());  // newest first, as compare lists them
    if (named_sets) sets.push_back({g.name, std::move(ids)});
  }
  auto pointers = [](const std::vector<analysis::RunInput>& in) {
    std::vector<const analysis::RunInput*> out;
    out.reserve(in.size());
    for (const auto& i : in) out.push_back(&i);
    return out;
  };
  report::MatrixTable table;  // no experiment: sets or label groups are not one
  for (size_t v = 0; v < groups.size(); ++v) {
    table.variants.push_back(groups[v].name);
    table.versus_first.push_back(analysis::CompareInputs(pointers(inputs[0]), pointers(inputs[v])));
  }
  return report::RenderHtmlMatrix(table, title, sets);
}

// `experiment:ID` with several variants: the table `matrix` printed, from the experiment's
// stored definition (its variants' order, names and seed); nullopt to draw the runs as any set.
tl::expected<std::optional<std::string>, Failure> RenderExperiment(store::Store& store,
                                                                   const Selector& selector,
                                                                   const std::string& title) {
  if (!selector.query.experiment) return std::nullopt;
  auto table = StoredExperimentTable(store, *selector.query.experiment);
  if (!table) return tl::unexpected(Failure{table.error().message, ExitCode::kStore});
  if (!*table || (*table)->variants.size() < 2) return std::nullopt;
  return report::RenderHtmlMatrix(**table, title);
}

tl::expected<std::string, Failure> RenderPage(store::Store& store,
                                              const std::vector<Selector>& selectors) {
  auto groups = Groups(store, selectors);
  if (!groups) return tl::unexpected(groups.error());
  std::string title = "nicbench report:";
  for (const auto& s : selectors) title += " " + s.text;
  if (selectors.size() == 1) {
    auto experiment = RenderExperiment(store, selectors[0], title);
    if (!experiment) return tl::unexpected(experiment.error());
    if (*experiment) return std::move(**experiment);
  }
  if (groups->size() == 1) return RenderRuns(store, (*groups)[0].runs);
  return RenderGroups(store, *groups, selectors.size() > 1, title);
}

int Report(const ReportArgs& args, const std::vector<Selector>& selectors) {
  auto file = OpenReportFile(args.output);
  if (!file) {
    LogError("nicbench report: " + file.error().message);
    return ToInt(ExitCode::kUsage);
  }
  auto store = OpenForReading(args.store);
  if (!store) {
    LogError("nicbench report: " + store.error().message);
    return ToInt(ExitCode::kStore);
  }
  auto page = RenderPage(**store, selectors);
  if (!page) {
    LogError("nicbench report: " + page.error().message);
    std::remove(args.output.c_str());  // no empty page left behind
    return ToInt(page.error().code);
  }
  if (auto s = WriteReportFile(*file, args.output, *page); !s) {
    LogError("nicbench report: " + s.error().message);
    return ToInt(ExitCode::kEnvironment);
  }
  std::fprintf(stderr, "nicbench: HTML report written to %s\n", args.output.c_str());
  return ToInt(ExitCode::kOk);
}

}  // namespace

int RunReportCommand(int argc, char** argv) {
  CLI::App app{"nicbench report: stored runs as a self-contained HTML page with charts", "report"};
  ReportArgs args;
  AddRows(app, args, ReportRows());
  AddStoreOption(app, args.store);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  ReportPlan plan;
  if (auto s = ApplyRows(args, ReportRows(), plan); !s) {
    LogError("nicbench report: " + s.error().message);
    return ToInt(ExitCode::kUsage);
  }
  return Report(args, plan.selectors);
}

}  // namespace nicbench::cli
