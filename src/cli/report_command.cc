// `nicbench report SELECTOR... -o FILE.html [--store PATH]`: stored runs as a self-contained
// HTML page (docs/report.md). One run: its full report. Several runs of one set with the same
// labels: each run's full report, one after the other. Several sets (one per selector), or an
// experiment's runs grouped by their variant labels: the comparison page, a bar chart per metric.
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
#include "cli/output_options.h"
#include "cli/parse_args.h"
#include "cli/selector.h"
#include "cli/store_options.h"
#include "report/html_report.h"

namespace nicbench::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> selectors;
  std::string output;
  StoreArgs store;
};

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

tl::expected<std::string, Failure> RenderGroups(store::Store& store,
                                                const std::vector<Group>& groups,
                                                const std::string& title) {
  std::vector<std::vector<analysis::RunInput>> inputs;
  for (const Group& g : groups) {
    auto loaded = LoadInputs(store, g.runs);
    if (!loaded) return tl::unexpected(Failure{loaded.error().message, ExitCode::kStore});
    inputs.push_back(std::move(*loaded));
  }
  auto pointers = [](const std::vector<analysis::RunInput>& in) {
    std::vector<const analysis::RunInput*> out;
    out.reserve(in.size());
    for (const auto& i : in) out.push_back(&i);
    return out;
  };
  report::MatrixTable table;
  if (!groups[0].runs.empty()) {
    auto e = groups[0].runs[0].labels.find("experiment");
    if (e != groups[0].runs[0].labels.end()) table.experiment = std::atoll(e->second.c_str());
  }
  for (size_t v = 0; v < groups.size(); ++v) {
    table.variants.push_back(groups[v].name);
    table.versus_first.push_back(analysis::CompareInputs(pointers(inputs[0]), pointers(inputs[v])));
  }
  return report::RenderHtmlMatrix(table, title);
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
  auto groups = Groups(**store, selectors);
  tl::expected<std::string, Failure> page = tl::unexpected(Failure{"", ExitCode::kOk});
  if (groups && groups->size() == 1) {
    page = RenderRuns(**store, (*groups)[0].runs);
  } else if (groups) {
    std::string title = "nicbench report:";
    for (const auto& s : selectors) title += " " + s.text;
    page = RenderGroups(**store, *groups, title);
  } else {
    page = tl::unexpected(groups.error());
  }
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
  app.add_option("SELECTOR", args.selectors,
                 "runs: an id, label:K=V[,K=V], last:N, id:A..B, experiment:ID; one set gives "
                 "each run's report (an experiment: its variants compared), several sets are "
                 "compared")
      ->required();
  app.add_option("-o,--output", args.output, "the HTML file to write")->required();
  AddStoreOption(app, args.store);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  std::vector<Selector> selectors;
  for (const std::string& text : args.selectors) {
    auto s = ParseSelector(text);
    if (!s) {
      LogError("nicbench report: " + s.error().message);
      return ToInt(ExitCode::kUsage);
    }
    selectors.push_back(std::move(*s));
  }
  return Report(args, selectors);
}

}  // namespace nicbench::cli
