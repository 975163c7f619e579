// The option tables of the commands around the tests (cli/option_rows.h says what a row holds):
// those that read the result store (history, show, compare, report, matrix) and those that look
// at a host (collect, inspect, disk), with the argument structs their rows bind to and the values
// their setters fill. The tables are in option_tables_tools.cc, each in the order --help lists
// its options; a command that also reads the store declares the shared --store row
// (StoreRows().first(1)) where its --help has always shown it, between two of its own tables
// when that is in the middle. Internal to the cli layer; the tables are constant.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cli/matrix_plan.h"
#include "cli/option_rows.h"
#include "cli/selector.h"
#include "cli/store_options.h"
#include "engine/disk_measure.h"
#include "store/store.h"

namespace nicbench::cli {

// `nicbench collect`, and what it captures.
struct CollectArgs {
  bool script = false;
  std::string out, iface, seconds = "3";
};
struct CollectPlan {
  std::string out, iface;  // iface empty: the default route's
  int seconds = 3;         // between the two samples
};

// `nicbench compare A B`: the two sets as typed, then as selectors.
struct CompareArgs {
  std::string a, b;
  StoreArgs store;
  bool json = false, csv = false, incomplete = false;
};
struct ComparePlan {
  Selector a, b;
};

// `nicbench disk PATH`; its spec is engine::DiskTestSpec.
struct DiskArgs {
  std::string path, size = "256M", length = "1M";
  bool direct = false, keep = false, json = false;
};

// `nicbench history`; its query is store::RunQuery.
struct HistoryArgs {
  std::string peer, since, last;
  std::vector<std::string> labels;
  bool incomplete = false, json = false, csv = false;
  StoreArgs store;
};

// `nicbench show ID`.
struct ShowArgs {
  std::string id;
  bool json = false, csv = false;
  StoreArgs store;
};
struct ShowPlan {
  int64_t id = 0;
};

// `nicbench inspect`: its texts are used as typed.
struct InspectArgs {
  std::string iface, peer, root, capture;
  bool json = false;
};

// `nicbench matrix HOST --vary ...` or `--resume ID`; a new experiment's rows fill its
// MatrixDefinition (cli/matrix_plan.h).
struct MatrixArgs {
  std::string host, repeat, setup, teardown, seed, resume;
  std::vector<std::string> vary;
  StoreArgs store;
  bool json = false, csv = false;
};

// `nicbench report SELECTOR... -o FILE`.
struct ReportArgs {
  std::vector<std::string> selectors;
  std::string output;
  StoreArgs store;
};
struct ReportPlan {
  std::vector<Selector> selectors;
};

std::span<const OptionRow<CollectArgs, CollectPlan>> CollectRows();
// compare: the two sets, then (after --store) the output.
std::span<const OptionRow<CompareArgs, ComparePlan>> CompareSetRows();
std::span<const OptionRow<CompareArgs>> CompareOutputRows();
std::span<const OptionRow<DiskArgs, engine::DiskTestSpec>> DiskRows();
std::span<const OptionRow<HistoryArgs, store::RunQuery>> HistoryRows();
std::span<const OptionRow<ShowArgs, ShowPlan>> ShowRows();
std::span<const OptionRow<InspectArgs>> InspectRows();
// matrix: the experiment, then (after --store) the output.
std::span<const OptionRow<MatrixArgs, MatrixDefinition>> MatrixRows();
std::span<const OptionRow<MatrixArgs>> MatrixOutputRows();
std::span<const OptionRow<ReportArgs, ReportPlan>> ReportRows();

// Every row of one of these commands' App, in the order it declares them (the --store row
// included); false when `command` is not one of them.
bool AppendToolRows(std::string_view command, std::vector<RowView>& out);

}  // namespace nicbench::cli
