// history's table and show's renderings of a stored run.
#include "report/store_report.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

std::string Fixed(std::optional<double> v) { return v ? fmt::format("{:.2f}", *v) : "-"; }

// A request/response run shows its CPU time per transaction where a bulk run shows its CPU
// per GB (per GB of 1-byte transactions is a meaningless huge number).
std::string CpuText(const RunSummary& s, bool client) {
  if (s.rr.mode.empty())
    return Fixed(client ? s.client_cpu_seconds_per_gb : s.server_cpu_seconds_per_gb);
  const std::optional<double>& us =
      client ? s.rr.client_process_us_per_transaction : s.rr.server_process_us_per_transaction;
  return us ? fmt::format("{:.2f} us/tx", *us) : "-";
}

// A request/response run shows its transactions/s where a bulk run shows its goodput.
std::string RateText(const RunSummary& s) {
  if (!s.rr.mode.empty()) {
    return s.rr.transactions_per_second ? fmt::format("{:.0f} tx/s", *s.rr.transactions_per_second)
                                        : "-";
  }
  return s.receiver_bits_per_second ? IperfBitRate(*s.receiver_bits_per_second) : "-";
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
          s.rr.mode.empty() ? s.protocol : s.protocol + " " + s.rr.mode,
          std::to_string(s.streams),
          RateText(s),
          CpuText(s, /*client=*/true),
          CpuText(s, /*client=*/false),
          s.retransmits ? std::to_string(*s.retransmits) : "-",
          FindingText(s),
          s.labels.empty() ? "-" : LabelsText(s.labels, " ")};
}

template <typename T>
nlohmann::json OrNull(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

// The request/response members and columns of history, in one order (docs/store.md).
struct RrField {
  const char* name;
  std::optional<double> RunSummary::Rr::*member;
};
const std::vector<RrField>& RrFields() {
  using R = RunSummary::Rr;
  static const std::vector<RrField> kFields = {
      {"transactions_per_second", &R::transactions_per_second},
      {"latency_p50_us", &R::p50_us},
      {"latency_p90_us", &R::p90_us},
      {"latency_p99_us", &R::p99_us},
      {"latency_p99_9_us", &R::p999_us},
      {"latency_max_us", &R::max_us},
      {"latency_mean_us", &R::mean_us},
      {"connect_p50_us", &R::connect_p50_us},
      {"connect_p99_us", &R::connect_p99_us},
      {"lost", &R::lost},
      {"late", &R::late},
      {"client_process_us_per_transaction", &R::client_process_us_per_transaction},
      {"server_process_us_per_transaction", &R::server_process_us_per_transaction},
      {"client_host_us_per_transaction", &R::client_host_us_per_transaction},
      {"server_host_us_per_transaction", &R::server_host_us_per_transaction},
  };
  return kFields;
}

bool AnyRr(const std::vector<RunSummary>& runs) {
  return std::any_of(runs.begin(), runs.end(),
                     [](const RunSummary& s) { return !s.rr.mode.empty(); });
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
                                    CsvNumber(rr.transactions_per_second),
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
    r["sender_bits_per_second"] = OrNull(s.sender_bits_per_second);
    r["receiver_bits_per_second"] = OrNull(s.receiver_bits_per_second);
    r["client_cpu_seconds_per_gb"] = OrNull(s.client_cpu_seconds_per_gb);
    r["server_cpu_seconds_per_gb"] = OrNull(s.server_cpu_seconds_per_gb);
    r["client_interrupts_per_gb"] = OrNull(s.client_interrupts_per_gb);
    r["server_interrupts_per_gb"] = OrNull(s.server_interrupts_per_gb);
    r["retransmits"] = OrNull(s.retransmits);
    r["mean_rtt_us"] = OrNull(s.mean_rtt_us);
    r["top_finding"] = s.top_finding.empty() ? nlohmann::ordered_json()
                                             : nlohmann::ordered_json{{"id", s.top_finding},
                                                                      {"severity", s.top_severity}};
    r["labels"] = nlohmann::ordered_json::object();
    for (const auto& [key, value] : s.labels) r["labels"][key] = value;
    if (!s.rr.mode.empty()) {
      nlohmann::ordered_json rr;
      rr["mode"] = s.rr.mode;
      for (const RrField& f : RrFields()) rr[f.name] = OrNull(s.rr.*f.member);
      r["rr"] = std::move(rr);
    }
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

std::vector<std::string> HistoryCsvHeader(bool incomplete, bool rr) {
  std::vector<std::string> header = {"id",
                                     "time",
                                     "client_host",
                                     "server_host",
                                     "peer",
                                     "direction",
                                     "protocol",
                                     "streams",
                                     "duration_seconds",
                                     "sender_bits_per_second",
                                     "receiver_bits_per_second",
                                     "client_cpu_seconds_per_gb",
                                     "server_cpu_seconds_per_gb",
                                     "client_interrupts_per_gb",
                                     "server_interrupts_per_gb",
                                     "retransmits",
                                     "mean_rtt_us",
                                     "top_finding",
                                     "top_severity",
                                     "labels"};
  if (incomplete) header.emplace_back("incomplete");
  if (rr) {
    header.emplace_back("rr_mode");
    for (const RrField& f : RrFields()) header.push_back(std::string("rr_") + f.name);
  }
  return header;
}

std::vector<std::string> HistoryCsvRow(const RunSummary& s, bool incomplete, bool rr) {
  std::optional<double> retransmits;
  if (s.retransmits) retransmits = static_cast<double>(*s.retransmits);
  std::vector<std::string> row = {std::to_string(s.id),
                                  s.timestamp,
                                  s.client_host,
                                  s.server_host,
                                  s.peer,
                                  s.direction,
                                  s.protocol,
                                  std::to_string(s.streams),
                                  CsvNumber(s.duration_seconds),
                                  CsvNumber(s.sender_bits_per_second),
                                  CsvNumber(s.receiver_bits_per_second),
                                  CsvNumber(s.client_cpu_seconds_per_gb),
                                  CsvNumber(s.server_cpu_seconds_per_gb),
                                  CsvNumber(s.client_interrupts_per_gb),
                                  CsvNumber(s.server_interrupts_per_gb),
                                  CsvNumber(retransmits),
                                  CsvNumber(s.mean_rtt_us),
                                  s.top_finding,
                                  s.top_severity,
                                  LabelsText(s.labels, ";")};
  if (incomplete) row.emplace_back(s.incomplete ? "1" : "0");
  if (rr) {
    row.push_back(s.rr.mode);
    for (const RrField& f : RrFields()) row.push_back(CsvNumber(s.rr.*f.member));
  }
  return row;
}

}  // namespace

std::string RenderHistoryCsv(const std::vector<RunSummary>& runs) {
  // The incomplete and request/response columns only when a run has them: a table of complete
  // bulk runs is as it was.
  const bool incomplete = AnyIncomplete(runs), rr = AnyRr(runs);
  std::string out = CsvRow(HistoryCsvHeader(incomplete, rr));
  for (const RunSummary& s : runs) out += CsvRow(HistoryCsvRow(s, incomplete, rr));
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
