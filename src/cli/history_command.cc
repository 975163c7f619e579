// `nicbench history`: the stored runs, newest first, filtered by peer, labels and time.
// `nicbench show ID`: one stored run re-rendered from its record. docs/store.md.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "base/log.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/option_tables_tools.h"
#include "cli/parse_args.h"
#include "cli/store_options.h"
#include "report/json_report.h"
#include "report/store_report.h"
#include "report/text_report.h"

namespace nicbench::cli {
namespace {

int Usage(const CLI::App& app, const std::string& message) {
  LogError(fmt::format("nicbench {}: {}", app.get_name(), message));
  return ToInt(ExitCode::kUsage);
}

int StoreFailed(const Error& error) {
  LogError(error.ToString());
  return ToInt(ExitCode::kStore);
}

// The newest 20 runs unless --last says otherwise, then what the rows ask.
Result<store::RunQuery> MakeQuery(const HistoryArgs& a) {
  store::RunQuery q;
  q.limit = 20;
  if (auto s = ApplyRows(a, HistoryRows(), q); !s) return tl::unexpected(s.error());
  return q;
}

}  // namespace

int RunHistoryCommand(int argc, char** argv) {
  CLI::App app{"nicbench history: the stored runs, newest first", "history"};
  HistoryArgs a;
  AddRows(app, a, HistoryRows());
  AddStoreOption(app, a.store);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); }))
    return *code;
  if (a.json && a.csv) return Usage(app, "--json and --csv cannot be used together");
  auto query = MakeQuery(a);
  if (!query) return Usage(app, query.error().message);
  auto store = OpenForReading(a.store);
  if (!store) return StoreFailed(store.error());
  auto runs = (*store)->Find(*query);
  if (!runs) return StoreFailed(runs.error());
  const std::string text = a.json  ? report::RenderHistoryJson(*runs)
                           : a.csv ? report::RenderHistoryCsv(*runs)
                                   : report::RenderHistoryText(*runs);
  std::fputs(text.c_str(), stdout);
  return ToInt(ExitCode::kOk);
}

int RunShowCommand(int argc, char** argv) {
  CLI::App app{"nicbench show: one stored run, as it printed", "show"};
  ShowArgs a;
  AddRows(app, a, ShowRows());
  AddStoreOption(app, a.store);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); }))
    return *code;
  if (a.json && a.csv) return Usage(app, "--json and --csv cannot be used together");
  ShowPlan plan;
  if (auto s = ApplyRows(a, ShowRows(), plan); !s) return Usage(app, s.error().message);
  auto store = OpenForReading(a.store);
  if (!store) return StoreFailed(store.error());
  auto run = (*store)->Get(plan.id);
  if (!run) return StoreFailed(run.error());
  if (!*run) {
    LogError(fmt::format("nicbench show: no run {} in {}", plan.id, (*store)->Describe()));
    return ToInt(ExitCode::kNotFound);
  }
  const record::RunRecord& record = (*run)->record;
  const std::string text = a.json  ? report::RenderJson(record)
                           : a.csv ? report::RenderIntervalsCsv((*run)->summary.id, record)
                                   : report::RenderReplay(record);
  std::fputs(text.c_str(), stdout);
  return ToInt(ExitCode::kOk);
}

}  // namespace nicbench::cli
