// history's table and show's renderings of a stored run.
#include "report/store_report.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/figure_table.h"
#include "record/json.h"
#include "report/csv.h"
#include "report/format.h"
#include "report/terminal_text.h"
#include "report/text_report.h"

namespace nicbench::report {
namespace {

using store::RunSummary;

std::string Time(const RunSummary& s) {
  std::string t = s.timestamp;  // "2026-11-30T09:02:48Z" -> "2026-11-30 09:02:48"
  std::replace(t.begin(), t.end(), 'T', ' ');
  if (!t.empty() && t.back() == 'Z') t.pop_back();
  return t;
}

std::string Hosts(const RunSummary& s) {
  // Host names are the ends' own words, read back from a store anyone may have written.
  const std::string client = s.client_host.empty() ? "?" : TerminalSafe(s.client_host);
  const std::string server = TerminalSafe(s.server_host.empty() ? s.peer : s.server_host);
  return client + " -> " + server;
}

std::string LabelsText(const store::Labels& labels, const char* separator) {
  std::string text;
  for (const auto& [key, value] : labels) {
    if (!text.empty()) text += separator;
    text += key + "=" + value;
  }
  return text;
}

std::string Fixed(const record::Measured<double>& v) {
  return v.known() ? fmt::format("{:.2f}", v.value()) : "-";
}

bool IsRr(const RunSummary& s) { return !s.rr_mode.empty(); }

// A request/response run shows its CPU time per transaction where a bulk run shows its CPU
// per GB (per GB of 1-byte transactions is a meaningless huge number).
std::string CpuText(const RunSummary& s, bool client) {
  if (!IsRr(s)) {
    return Fixed(s.figures.Get(client ? "client_cpu_seconds_per_gigabyte"
                                      : "server_cpu_seconds_per_gigabyte"));
  }
  const record::Measured<double>& us = s.figures.Get(
      client ? "rr_client_process_us_per_transaction" : "rr_server_process_us_per_transaction");
  return us.known() ? fmt::format("{:.2f} us/tx", us.value()) : "-";
}

// A request/response run shows its transactions/s where a bulk run shows its goodput.
std::string RateText(const RunSummary& s) {
  if (IsRr(s)) {
    const record::Measured<double>& tps = s.figures.Get("rr_transactions_per_second");
    return tps.known() ? fmt::format("{:.0f} tx/s", tps.value()) : "-";
  }
  const record::Measured<double>& bps = s.figures.Get("receiver_bits_per_second");
  return bps.known() ? IperfBitRate(bps.value()) : "-";
}

std::string RetransmitsText(const RunSummary& s) {
  const record::Measured<double>& r = s.figures.Get("retransmits");
  return r.known() ? fmt::format("{:.0f}", r.value()) : "-";
}

// An incomplete run was not diagnosed: the column says what it is instead.
std::string FindingText(const RunSummary& s) {
  if (s.incomplete) return "incomplete (interrupted)";
  return s.top_finding.empty() ? "-" : s.top_severity + " " + s.top_finding;
}

std::vector<std::string> TextRow(const RunSummary& s) {
  return {std::to_string(s.id),
          Time(s),
          Hosts(s),
          s.direction == "bidirectional" ? "bidir" : s.direction,
          IsRr(s) ? s.protocol + " " + s.rr_mode : s.protocol,
          std::to_string(s.streams),
          RateText(s),
          CpuText(s, /*client=*/true),
          CpuText(s, /*client=*/false),
          RetransmitsText(s),
          FindingText(s),
          s.labels.empty() ? "-" : LabelsText(s.labels, " ")};
}

// The figures of a group a run shows: the bulk ones always, the request/response ones for a
// request/response run, the latency-under-load ones where any is known.
bool ShowsGroup(const RunSummary& s, analysis::FigureGroup group) {
  switch (group) {
    case analysis::FigureGroup::kRr: return IsRr(s);
    case analysis::FigureGroup::kUnderLoad: return s.figures.AnyKnown(group);
    case analysis::FigureGroup::kBulk: break;
  }
  return true;
}

bool AnyShows(const std::vector<RunSummary>& runs, analysis::FigureGroup group) {
  return std::any_of(runs.begin(), runs.end(),
                     [&](const RunSummary& s) { return ShowsGroup(s, group); });
}

// A count (retransmitted segments, lost transactions) is written as an integer, as it was.
nlohmann::ordered_json FigureJson(const analysis::Figure& f, const record::Measured<double>& v) {
  if (!v.known()) return nullptr;
  const std::string_view unit = f.unit;
  if (unit == "segments" || unit == "transactions") return static_cast<int64_t>(v.value());
  return v.value();
}

// One group's figures as JSON members, the group's key prefix left out inside its own member
// ("rr": {"latency_p99_us"}), unknown ones null with their reason under "unknown" (the record's
// rule, record/json.h), a known one's caveat under "caveats".
nlohmann::ordered_json GroupJson(const RunSummary& s, analysis::FigureGroup group) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  nlohmann::ordered_json unknown = nlohmann::ordered_json::object();
  nlohmann::ordered_json caveats = nlohmann::ordered_json::object();
  const std::string prefix = group == analysis::FigureGroup::kBulk
                                 ? std::string()
                                 : std::string(analysis::FigureGroupName(group)) + "_";
  for (const analysis::Figure& f : analysis::Figures()) {
    if (f.group != group) continue;
    const std::string name = std::string(f.key).substr(prefix.size());
    const record::Measured<double>& v = s.figures[f];
    out[name] = FigureJson(f, v);
    if (!v.known()) unknown[name] = record::UnknownReason(v.why(), v.detail());
    if (!s.figures.Caveat(f).empty()) caveats[name] = s.figures.Caveat(f);
  }
  if (!unknown.empty()) out["unknown"] = std::move(unknown);
  // Known values that compare leaves out of its test, and why (analysis/other_traffic.h).
  if (!caveats.empty()) out["caveats"] = std::move(caveats);
  return out;
}

// Samples are taken on the interval boundaries: the i-th sample belongs to the i-th interval.
const record::HostInterval* SampleAt(const std::vector<record::HostInterval>& samples, size_t i) {
  return i < samples.size() ? &samples[i] : nullptr;
}

void EndRows(int64_t id, const char* end, const record::EndpointRecord& e, bool tcp,
             std::string& out) {
  for (const record::IntervalRecord& interval : e.intervals) {
    for (const record::StreamInterval& s : interval.streams) {
      const record::TcpInfoSample* info = s.tcp_info.get();
      auto opt_u = [](bool known, double v) {
        return known ? std::optional<double>(v) : std::nullopt;
      };
      out += CsvRow(
          {std::to_string(id), end, record::RoleName(e.role), CsvNumber(s.start), CsvNumber(s.end),
           s.omitted ? "1" : "0", std::to_string(s.id), s.sender ? "1" : "0",
           std::to_string(s.bytes), CsvNumber(BitsPerSecond(s.bytes, s.end - s.start)),
           CsvNumber(opt_u(tcp && s.sender, s.retransmits)),
           CsvNumber(opt_u(info != nullptr, info ? info->rtt_us : 0)),
           CsvNumber(opt_u(info != nullptr,
                           info ? static_cast<double>(info->snd_cwnd) * info->snd_mss : 0)),
           CsvNumber(opt_u(!tcp, s.packets)), CsvNumber(opt_u(!tcp, s.lost)),
           CsvNumber(opt_u(!tcp, s.out_of_order)),
           CsvNumber(opt_u(!tcp && !s.sender, s.jitter_seconds * 1000.0))});
    }
  }
}

// Microsecond figures of a latency summary, "" each when nothing was timed.
std::vector<std::string> LatencyCells(const std::optional<record::LatencySummary>& l) {
  const bool known = l && l->count > 0;
  auto cell = [&](double record::LatencySummary::*m) {
    return CsvNumber(known ? std::optional<double>((*l).*m) : std::nullopt);
  };
  using L = record::LatencySummary;
  return {cell(&L::p50_us),  cell(&L::p90_us), cell(&L::p99_us),
          cell(&L::p999_us), cell(&L::max_us), cell(&L::mean_us)};
}

// A request/response run: one row per interval per end, every flow together (docs/rr.md).
void RrEndRows(int64_t id, const char* end, const record::EndpointRecord& e, bool udp,
               std::string& out) {
  for (const record::IntervalRecord& interval : e.intervals) {
    if (!interval.rr) continue;
    const record::RrStats& rr = *interval.rr;
    auto udp_only = [udp](uint64_t v) {
      return CsvNumber(udp ? std::optional<double>(static_cast<double>(v)) : std::nullopt);
    };
    std::vector<std::string> row = {std::to_string(id),
                                    end,
                                    record::RoleName(e.role),
                                    CsvNumber(interval.start),
                                    CsvNumber(interval.end),
                                    interval.omitted ? "1" : "0",
                                    std::to_string(rr.transactions),
                                    CsvNumber(record::TransactionsPerSecond(rr)),
                                    udp_only(rr.lost),
                                    udp_only(rr.late)};
    for (std::string& cell : LatencyCells(rr.latency)) row.push_back(std::move(cell));
    for (std::string& cell : LatencyCells(rr.connect)) row.push_back(std::move(cell));
    out += CsvRow(row);
  }
}

std::string RenderRrIntervalsCsv(int64_t run_id, const record::RunRecord& run) {
  std::string out = CsvRow({"run_id",         "end",
                            "role",           "interval_start",
                            "interval_end",   "omitted",
                            "transactions",   "transactions_per_second",
                            "lost",           "late",
                            "latency_p50_us", "latency_p90_us",
                            "latency_p99_us", "latency_p99_9_us",
                            "latency_max_us", "latency_mean_us",
                            "connect_p50_us", "connect_p90_us",
                            "connect_p99_us", "connect_p99_9_us",
                            "connect_max_us", "connect_mean_us"});
  const bool udp = run.spec.transport == record::Transport::kUdp;
  RrEndRows(run_id, "local", run.local, udp, out);
  if (run.remote.known()) RrEndRows(run_id, "remote", run.remote.value(), udp, out);
  return out;
}

}  // namespace

std::string RenderHistoryText(const std::vector<RunSummary>& runs) {
  if (runs.empty()) return "No stored runs match.\n";
  std::vector<std::vector<std::string>> rows = {{"ID", "TIME (UTC)", "HOSTS", "DIR", "PROTO", "P",
                                                 "GOODPUT", "CPU/GB C", "CPU/GB S", "RETR",
                                                 "FINDING", "LABELS"}};
  for (const RunSummary& s : runs) {
    // Every cell was read back from a store that anyone with write access may have filled.
    std::vector<std::string> row = TextRow(s);
    for (std::string& cell : row) cell = TerminalSafe(cell);
    rows.push_back(std::move(row));
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  // Numbers right-aligned (id, streams, goodput, costs, retransmits), text left-aligned.
  const std::vector<bool> right = {true, false, false, false, false, true,
                                   true, true,  true,  true,  false, false};
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) line += "  ";
      const bool last = c + 1 == row.size();
      line += right[c] ? fmt::format("{:>{}}", row[c], width[c])
                       : (last ? row[c] : fmt::format("{:<{}}", row[c], width[c]));
    }
    out += line + "\n";
  }
  return out;
}

std::string RenderHistoryJson(const std::vector<RunSummary>& runs) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const RunSummary& s : runs) {
    nlohmann::ordered_json r;
    r["id"] = s.id;
    r["time"] = s.timestamp;
    r["time_secs"] = s.timestamp_secs;
    r["client_host"] = s.client_host;
    r["server_host"] = s.server_host;
    r["peer"] = s.peer;
    r["direction"] = s.direction;
    r["protocol"] = s.protocol;
    r["streams"] = s.streams;
    r["duration_seconds"] = s.duration_seconds;
    r["incomplete"] = s.incomplete;
    // The bulk figures at the top level, as history always had them; their reasons last.
    nlohmann::ordered_json bulk = GroupJson(s, analysis::FigureGroup::kBulk);
    nlohmann::ordered_json unknown, caveats;
    for (auto [key, member] : {std::pair{"unknown", &unknown}, std::pair{"caveats", &caveats}}) {
      if (const auto it = bulk.find(key); it != bulk.end()) {
        *member = std::move(*it);
        bulk.erase(key);
      }
    }
    r.update(bulk);
    r["top_finding"] = s.top_finding.empty() ? nlohmann::ordered_json()
                                             : nlohmann::ordered_json{{"id", s.top_finding},
                                                                      {"severity", s.top_severity}};
    r["labels"] = nlohmann::ordered_json::object();
    for (const auto& [key, value] : s.labels) r["labels"][key] = value;
    if (IsRr(s)) {
      r["rr"] = {{"mode", s.rr_mode}};
      r["rr"].update(GroupJson(s, analysis::FigureGroup::kRr));
    }
    if (ShowsGroup(s, analysis::FigureGroup::kUnderLoad)) {
      r["under_load"] = GroupJson(s, analysis::FigureGroup::kUnderLoad);
    }
    if (!unknown.is_null()) r["unknown"] = std::move(unknown);
    if (!caveats.is_null()) r["caveats"] = std::move(caveats);
    list.push_back(std::move(r));
  }
  nlohmann::ordered_json doc;
  doc["runs"] = std::move(list);
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

bool AnyIncomplete(const std::vector<RunSummary>& runs) {
  return std::any_of(runs.begin(), runs.end(), [](const RunSummary& s) { return s.incomplete; });
}

// The CSV groups shown: request/response and latency under load only when a run has them.
struct CsvGroups {
  bool incomplete = false, rr = false, under_load = false;
};

void AddFigureHeader(analysis::FigureGroup group, std::vector<std::string>& header) {
  for (const analysis::Figure& f : analysis::Figures()) {
    if (f.group == group) header.emplace_back(f.key);
  }
}

void AddFigureCells(const RunSummary& s, analysis::FigureGroup group,
                    std::vector<std::string>& row) {
  for (const analysis::Figure& f : analysis::Figures()) {
    if (f.group != group) continue;
    const record::Measured<double>& v = s.figures[f];
    row.push_back(CsvNumber(v.known() ? std::optional<double>(v.value()) : std::nullopt));
  }
}

std::vector<std::string> HistoryCsvHeader(const CsvGroups& g) {
  std::vector<std::string> header = {"id",          "time",    "client_host",
                                     "server_host", "peer",    "direction",
                                     "protocol",    "streams", "duration_seconds"};
  AddFigureHeader(analysis::FigureGroup::kBulk, header);
  for (const char* name : {"top_finding", "top_severity", "labels"}) header.emplace_back(name);
  if (g.incomplete) header.emplace_back("incomplete");
  if (g.rr) {
    header.emplace_back("rr_mode");
    AddFigureHeader(analysis::FigureGroup::kRr, header);
  }
  if (g.under_load) AddFigureHeader(analysis::FigureGroup::kUnderLoad, header);
  return header;
}

std::vector<std::string> HistoryCsvRow(const RunSummary& s, const CsvGroups& g) {
  std::vector<std::string> row = {std::to_string(s.id),
                                  s.timestamp,
                                  s.client_host,
                                  s.server_host,
                                  s.peer,
                                  s.direction,
                                  s.protocol,
                                  std::to_string(s.streams),
                                  CsvNumber(s.duration_seconds)};
  AddFigureCells(s, analysis::FigureGroup::kBulk, row);
  for (std::string cell : {s.top_finding, s.top_severity, LabelsText(s.labels, ";")}) {
    row.push_back(std::move(cell));
  }
  if (g.incomplete) row.emplace_back(s.incomplete ? "1" : "0");
  if (g.rr) {
    row.push_back(s.rr_mode);
    AddFigureCells(s, analysis::FigureGroup::kRr, row);
  }
  if (g.under_load) AddFigureCells(s, analysis::FigureGroup::kUnderLoad, row);
  return row;
}

}  // namespace

std::string RenderHistoryCsv(const std::vector<RunSummary>& runs) {
  // The incomplete, request/response and under-load columns only when a run has them: a table
  // of complete bulk runs keeps its shape.
  CsvGroups g;
  g.incomplete = AnyIncomplete(runs);
  g.rr = AnyShows(runs, analysis::FigureGroup::kRr);
  g.under_load = AnyShows(runs, analysis::FigureGroup::kUnderLoad);
  std::string out = CsvRow(HistoryCsvHeader(g));
  for (const RunSummary& s : runs) out += CsvRow(HistoryCsvRow(s, g));
  return out;
}

std::string RenderReplay(const record::RunRecord& run) {
  // A client's record: the connection lines printed before the first interval.
  std::string out = run.local.role == record::Role::kClient ? RenderConnectedLines(run, false) : "";
  const std::vector<record::HostInterval> none;
  const auto& remote = run.remote.known() ? run.remote.value().samples : none;
  for (size_t i = 0; i < run.intervals.size(); ++i) {
    if (i == 0) out += RenderIntervalHeader(run);
    out += RenderIntervalLine(run, run.intervals[i], SampleAt(run.local.samples, i),
                              SampleAt(remote, i));
  }
  return out + RenderSummary(run);
}

std::string RenderIntervalsCsv(int64_t run_id, const record::RunRecord& run) {
  if (run.spec.rr.enabled()) return RenderRrIntervalsCsv(run_id, run);
  std::string out = CsvRow({"run_id", "end", "role", "interval_start", "interval_end", "omitted",
                            "stream", "sender", "bytes", "bits_per_second", "retransmits", "rtt_us",
                            "snd_cwnd_bytes", "packets", "lost", "out_of_order", "jitter_ms"});
  const bool tcp = run.spec.transport == record::Transport::kTcp;
  EndRows(run_id, "local", run.local, tcp, out);
  if (run.remote.known()) EndRows(run_id, "remote", run.remote.value(), tcp, out);
  return out;
}

}  // namespace nicbench::report
