#include "cli/option_tables_tools.h"

#include <cstdint>
#include <ctime>
#include <string>

#include <fmt/format.h>

#include "cli/option_tables.h"

namespace nicbench::cli {
namespace {

using engine::DiskTestSpec;
using store::RunQuery;

// A selector (cli/selector.h) into a member; its message quotes the text and lists the forms.
template <auto... Path>
Status SetSelector(std::string_view, const std::string& text, TargetOf<Path...>& target) {
  auto selector = ParseSelector(text);
  if (!selector) return tl::unexpected(selector.error());
  MemberAt<TargetOf<Path...>, Path...>(target) = std::move(*selector);
  return Ok();
}

Status AddSelector(std::string_view, const std::string& text, ReportPlan& plan) {
  auto selector = ParseSelector(text);
  if (!selector) return tl::unexpected(selector.error());
  plan.selectors.push_back(std::move(*selector));
  return Ok();
}

// history --label KEY=VALUE: one more label every run must carry.
Status AddLabel(std::string_view name, const std::string& text, RunQuery& query) {
  auto label = store::ParseLabel(text);
  if (!label) return Fail(fmt::format("{}: {}", name, label.error().message));
  query.labels[label->first] = label->second;
  return Ok();
}

Status SetSince(std::string_view name, const std::string& text, RunQuery& query) {
  auto since = ParseSince(text, std::time(nullptr));
  if (!since) return Fail(fmt::format("{}: {}", name, since.error().message));
  query.since_secs = *since;
  return Ok();
}

// show ID: a run id is positive and fits the store's integer.
Status SetRunId(std::string_view, const std::string& text, ShowPlan& plan) {
  auto id = ParseUnsigned(text);
  if (!id || *id == 0 || *id > static_cast<uint64_t>(INT64_MAX)) {
    return Fail(fmt::format("'{}' is not a run id (a positive number)", text));
  }
  plan.id = static_cast<int64_t>(*id);
  return Ok();
}

Status AddVary(std::string_view, const std::string& text, MatrixDefinition& definition) {
  auto vary = ParseVary(text);  // its message names --vary
  if (!vary) return tl::unexpected(vary.error());
  definition.varies.push_back(std::move(*vary));
  return Ok();
}

const OptionRow<CollectArgs, CollectPlan> kCollectRows[] = {
    {"--script", "print the POSIX sh capture script (Linux or FreeBSD far end)",
     &CollectArgs::script},
    {"-o,--output", "write this host's capture into DIR", &CollectArgs::out,
     SetText<&CollectPlan::out>, nullptr, nullptr, kPlain, "--script"},
    {"-i,--iface", "interface that carries the test (default: the default route's)",
     &CollectArgs::iface, SetText<&CollectPlan::iface>},
    {"-s,--seconds", "seconds between the two samples (default 3)", &CollectArgs::seconds,
     SetNumber<Range{1, 3600}, &CollectPlan::seconds>, "0", nullptr, kIntValue},
};

const OptionRow<CompareArgs, ComparePlan> kCompareSetRows[] = {
    {"A", "the first set: a run id, label:K=V[,K=V], last:N, id:A..B, experiment:ID",
     &CompareArgs::a, SetSelector<&ComparePlan::a>, "nonsense:1", nullptr, kRequired},
    {"B", "the second set, the same forms", &CompareArgs::b, SetSelector<&ComparePlan::b>, nullptr,
     nullptr, kRequired},
};

const OptionRow<CompareArgs> kCompareOutputRows[] = {
    {"--json", "one JSON document on stdout", &CompareArgs::json},
    {"--csv", "CSV on stdout, one row per metric", &CompareArgs::csv, nullptr, nullptr, nullptr,
     kPlain, "--json"},
    {"--incomplete",
     "also take runs interrupted before their end (left out by default, named on stderr)",
     &CompareArgs::incomplete},
};

const OptionRow<DiskArgs, DiskTestSpec> kDiskRows[] = {
    {"path",
     "a new file (written, read, removed), an existing file (only read), or a directory (a "
     "temporary file in it)",
     &DiskArgs::path, SetText<&DiskTestSpec::path>, nullptr, nullptr, kRequired},
    {"--size", "bytes to write, and at most to read (K/M/G; default 256M)", &DiskArgs::size,
     SetNumber<Range{1, UINT64_MAX, Reading::kByteSize}, &DiskTestSpec::size>, "0"},
    {"-l,--length", "bytes per read/write call (default 1M)", &DiskArgs::length,
     SetNumber<Range{1, 64u << 20, Reading::kByteSize}, &DiskTestSpec::block_bytes>, "0"},
    {"--direct", "O_DIRECT: no page cache (where the filesystem allows)", &DiskArgs::direct,
     SetFlag<&DiskTestSpec::direct>},
    {"--keep", "keep the file the test wrote", &DiskArgs::keep, SetFlag<&DiskTestSpec::keep>},
    {"-J,--json", "one JSON document on stdout", &DiskArgs::json},
};

const OptionRow<HistoryArgs, RunQuery> kHistoryRows[] = {
    {"--peer", "only runs against this server (address as given, or hostname)", &HistoryArgs::peer,
     SetText<&RunQuery::peer>},
    {"--label", "only runs with label KEY=VALUE (repeatable; all must match)", &HistoryArgs::labels,
     AddLabel, "no-equals-sign", nullptr, kRepeatable},
    {"--since",
     "only runs started at or after DATE: 2026-11-30, '2026-11-30 09:00[:00]' (UTC),\n"
     "or a time ago: 90m, 12h, 7d",
     &HistoryArgs::since, SetSince, "yesterday"},
    {"--last", "the newest N runs (default 20; 0 = all)", &HistoryArgs::last,
     SetNumber<Range{0, 100000000}, &RunQuery::limit>, "x"},
    {"--incomplete",
     "also the runs interrupted before their end, marked incomplete (left out by default)",
     &HistoryArgs::incomplete, SetFlag<&RunQuery::include_incomplete>},
    {"--json", "JSON instead of text", &HistoryArgs::json},
    {"--csv", "CSV instead of text", &HistoryArgs::csv},
};

const OptionRow<ShowArgs, ShowPlan> kShowRows[] = {
    {"id", "the run's id (from the run's stderr line or `nicbench history`)", &ShowArgs::id,
     SetRunId, "0", nullptr, kRequired},
    {"--json", "JSON instead of text", &ShowArgs::json},
    {"--csv", "CSV instead of text", &ShowArgs::csv},
};

const OptionRow<InspectArgs> kInspectRows[] = {
    {"-i,--iface", "interface to describe (e.g. eth0)", &InspectArgs::iface},
    {"-p,--peer", "describe the interface that routes to this address", &InspectArgs::peer, nullptr,
     nullptr, nullptr, kPlain, "-i"},
    {"-J,--json", "one JSON document on stdout", &InspectArgs::json},
    {"--root", "read /proc and /sys under this directory (a captured tree)", &InspectArgs::root,
     nullptr, "/nonexistent/nicbench-root", nullptr, kExistingDirectory},
    {"--capture",
     "write what the probes read from /proc, /sys, the ethtool ioctls and tc under this "
     "directory (for --root), then describe it",
     &InspectArgs::capture},
};

const OptionRow<MatrixArgs, MatrixDefinition> kMatrixRows[] = {
    {"host", "the server every run tests against (nicbench serve)", &MatrixArgs::host,
     SetText<&MatrixDefinition::host>},
    {"--vary",
     "NAME=V1,V2,...: direction, streams, proto, a run option (-w, -C, ...), a\n"
     "stand toggle on a stand link (tso, gso, gro, mtu, profile, queue), or any\n"
     "name the --setup/--teardown commands use as {NAME}; repeatable",
     &MatrixArgs::vary, AddVary, "no-values", nullptr, kTakeAll},
    {"--repeat", "rounds: every variant runs once per round (1..1000)", &MatrixArgs::repeat,
     SetNumber<Range{1, 1000}, &MatrixDefinition::repeat>, "0", nullptr, kIntValue},
    {"--setup", "shell command run before each run, {NAME} replaced", &MatrixArgs::setup,
     SetText<&MatrixDefinition::setup>},
    {"--teardown", "shell command run after each run, {NAME} replaced", &MatrixArgs::teardown,
     SetText<&MatrixDefinition::teardown>},
    {"--seed", "seed of the shuffled order (default: random; recorded)", &MatrixArgs::seed,
     SetNumber<Range{}, &MatrixDefinition::seed>, "x"},
    {"--resume",
     "complete the runs experiment ID still lacks; its stored --setup/--teardown run only when "
     "given again here, word for word",
     &MatrixArgs::resume},
};

const OptionRow<MatrixArgs> kMatrixOutputRows[] = {
    {"--json", "the result table as one JSON document", &MatrixArgs::json},
    {"--csv", "the result table as CSV", &MatrixArgs::csv, nullptr, nullptr, nullptr, kPlain,
     "--json"},
};

const OptionRow<ReportArgs, ReportPlan> kReportRows[] = {
    {"SELECTOR",
     "runs: an id, label:K=V[,K=V], last:N, id:A..B, experiment:ID; one set gives each run's "
     "report (an experiment: its variants compared), several sets are compared",
     &ReportArgs::selectors, AddSelector, "nonsense:1", nullptr, kRequired},
    {"-o,--output", "the HTML file to write", &ReportArgs::output, nullptr, nullptr, nullptr,
     kRequired},
};

}  // namespace

std::span<const OptionRow<CollectArgs, CollectPlan>> CollectRows() { return kCollectRows; }
std::span<const OptionRow<CompareArgs, ComparePlan>> CompareSetRows() { return kCompareSetRows; }
std::span<const OptionRow<CompareArgs>> CompareOutputRows() { return kCompareOutputRows; }
std::span<const OptionRow<DiskArgs, DiskTestSpec>> DiskRows() { return kDiskRows; }
std::span<const OptionRow<HistoryArgs, RunQuery>> HistoryRows() { return kHistoryRows; }
std::span<const OptionRow<ShowArgs, ShowPlan>> ShowRows() { return kShowRows; }
std::span<const OptionRow<InspectArgs>> InspectRows() { return kInspectRows; }
std::span<const OptionRow<MatrixArgs, MatrixDefinition>> MatrixRows() { return kMatrixRows; }
std::span<const OptionRow<MatrixArgs>> MatrixOutputRows() { return kMatrixOutputRows; }
std::span<const OptionRow<ReportArgs, ReportPlan>> ReportRows() { return kReportRows; }

bool AppendToolRows(std::string_view command, std::vector<RowView>& out) {
  const auto store = StoreRows().first(1);
  if (command == "collect") {
    AppendViews(out, CollectRows());
  } else if (command == "compare") {
    AppendViews(out, CompareSetRows());
    AppendViews(out, store);
    AppendViews(out, CompareOutputRows());
  } else if (command == "disk") {
    AppendViews(out, DiskRows());
  } else if (command == "history") {
    AppendViews(out, HistoryRows());
    AppendViews(out, store);
  } else if (command == "show") {
    AppendViews(out, ShowRows());
    AppendViews(out, store);
  } else if (command == "inspect") {
    AppendViews(out, InspectRows());
  } else if (command == "matrix") {
    AppendViews(out, MatrixRows());
    AppendViews(out, store);
    AppendViews(out, MatrixOutputRows());
  } else if (command == "report") {
    AppendViews(out, ReportRows());
    AppendViews(out, store);
  } else {
    return false;
  }
  return true;
}

}  // namespace nicbench::cli
