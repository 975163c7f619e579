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
#include "cli/parse_args.h"
#include "cli/store_options.h"
#include "report/json_report.h"
#include "report/store_report.h"
#include "report/text_report.h"

namespace nicbench::cli {
namespace {

struct ReadArgs {
  StoreArgs store;
  bool json = false, csv = false;
};

void AddFormatOptions(CLI::App& app, ReadArgs& a) {
  app.add_flag("--json", a.json, "JSON instead of text");
  app.add_flag("--csv", a.csv, "CSV instead of text");
  AddStoreOption(app, a.store);
}

int Usage(const CLI::App& app, const std::string& message) {
  LogError(fmt::format("nicbench {}: {}", app.get_name(), message));
  return ToInt(ExitCode::kUsage);
}

int StoreFailed(const Error& error) {
  LogError(error.ToString());
  return ToInt(ExitCode::kStore);
}

struct HistoryArgs {
  ReadArgs read;
  std::string peer, since, last;
  std::vector<std::string> labels;
  bool incomplete = false;
};

Result<store::RunQuery> MakeQuery(const HistoryArgs& a) {
  store::RunQuery q;
  if (!a.peer.empty()) q.peer = a.peer;
  for (const std::string& text : a.labels) {
    auto label = store::ParseLabel(text);
    if (!label) return Fail("--label: " + label.error().message);
    q.labels[label->first] = label->second;
  }
  if (!a.since.empty()) {
    auto since = ParseSince(a.since, std::time(nullptr));
    if (!since) return Fail("--since: " + since.error().message);
    q.since_secs = *since;
  }
  q.include_incomplete = a.incomplete;
  q.limit = 20;
  if (!a.last.empty()) {
    auto n = ParseUnsigned(a.last);
    if (!n || *n > 100000000) return Fail(fmt::format("--last: '{}' is not a count", a.last));
    q.limit = *n;
  }
  return q;
}

}  // namespace

int RunHistoryCommand(int argc, char** argv) {
  CLI::App app{"nicbench history: the stored runs, newest first", "history"};
  HistoryArgs a;
  app.add_option("--peer", a.peer, "only runs against this server (address as given, or hostname)");
  app.add_option("--label", a.labels, "only runs with label KEY=VALUE (repeatable; all must match)")
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  app.add_option("--since", a.since,
                 "only runs started at or after DATE: 2026-11-30, '2026-11-30 09:00[:00]' (UTC),\n"
                 "or a time ago: 90m, 12h, 7d");
  app.add_option("--last", a.last, "the newest N runs (default 20; 0 = all)");
  app.add_flag("--incomplete", a.incomplete,
               "also the runs interrupted before their end, marked incomplete (left out by "
               "default)");
  AddFormatOptions(app, a.read);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); }))
    return *code;
  if (a.read.json && a.read.csv) return Usage(app, "--json and --csv cannot be used together");
  auto query = MakeQuery(a);
  if (!query) return Usage(app, query.error().message);
  auto store = OpenForReading(a.read.store);
  if (!store) return StoreFailed(store.error());
  auto runs = (*store)->Find(*query);
  if (!runs) return StoreFailed(runs.error());
  const std::string text = a.read.json  ? report::RenderHistoryJson(*runs)
                           : a.read.csv ? report::RenderHistoryCsv(*runs)
                                        : report::RenderHistoryText(*runs);
  std::fputs(text.c_str(), stdout);
  return ToInt(ExitCode::kOk);
}

int RunShowCommand(int argc, char** argv) {
  CLI::App app{"nicbench show: one stored run, as it printed", "show"};
  ReadArgs a;
  std::string id_text;
  app.add_option("id", id_text, "the run's id (from the run's stderr line or `nicbench history`)")
      ->required();
  AddFormatOptions(app, a);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); }))
    return *code;
  if (a.json && a.csv) return Usage(app, "--json and --csv cannot be used together");
  auto id = ParseUnsigned(id_text);
  if (!id || *id == 0 || *id > static_cast<uint64_t>(INT64_MAX)) {
    return Usage(app, fmt::format("'{}' is not a run id (a positive number)", id_text));
  }
  auto store = OpenForReading(a.store);
  if (!store) return StoreFailed(store.error());
  auto run = (*store)->Get(static_cast<int64_t>(*id));
  if (!run) return StoreFailed(run.error());
  if (!*run) {
    LogError(fmt::format("nicbench show: no run {} in {}", *id, (*store)->Describe()));
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
