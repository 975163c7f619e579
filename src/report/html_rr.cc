// The HTML report of a request/response test (docs/rr.md): its figures in the summary table, and
// a section of charts over the intervals (transactions/s as each end counted them, the client's
// latency percentiles, CRR's connect times, UDP's lost and late transactions) in place of the
// throughput chart, which for a few bytes per round trip says nothing.
#include <fmt/format.h>

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/figures.h"
#include "report/html_chart.h"

namespace nicbench::report::html {
namespace {

using Pick = std::function<std::optional<double>(const record::RrStats&)>;

std::string Us(double us) { return fmt::format("{:.1f} us", us); }

// One value per interval of `intervals` (null where an interval has no such figure), `count`
// long.
Json RrSeries(const std::vector<record::IntervalRecord>& intervals, size_t count,
              const std::string& label, bool dash, const Pick& pick) {
  Json s = Series(label, label, dash, false);
  for (size_t i = 0; i < count; ++i) {
    const auto value =
        i < intervals.size() && intervals[i].rr ? pick(*intervals[i].rr) : std::nullopt;
    s["data"].push_back(value ? Json(Round(*value, 3)) : Json(nullptr));
  }
  return s;
}

// A latency summary's member, when the summary timed something.
Pick Percentile(std::optional<record::LatencySummary> record::RrStats::*which,
                double record::LatencySummary::*member) {
  return [which, member](const record::RrStats& rr) -> std::optional<double> {
    const auto& l = rr.*which;
    if (!l || l->count == 0) return std::nullopt;
    return (*l).*member;
  };
}

Json TransactionsChart(const record::RunRecord& run) {
  const std::string local = Ends(run)[0].first;
  const std::string remote = local == "client" ? "server" : "client";
  Json c = Chart("rr-tps", "Transactions per second", "transactions/s", false);
  c["x"] = TimeAxis(run.intervals);
  const size_t n = run.intervals.size();
  auto tps = [](const record::RrStats& rr) -> std::optional<double> {
    return record::TransactionsPerSecond(rr);
  };
  c["series"].push_back(RrSeries(run.intervals, n, local + "'s count", false, tps));
  if (run.remote.known()) {
    c["series"].push_back(
        RrSeries(run.remote.value().intervals, n, remote + "'s count", true, tps));
  }
  return c;
}

using Percentiles = std::vector<std::pair<const char*, double record::LatencySummary::*>>;

// Percentiles of `which` (latency or connect) per interval, one line each.
Json PercentileChart(const record::RunRecord& run, const std::string& id, const std::string& title,
                     std::optional<record::LatencySummary> record::RrStats::*which,
                     const Percentiles& lines) {
  Json c = Chart(id, title, "us", false);
  c["x"] = TimeAxis(run.intervals);
  const size_t n = run.intervals.size();
  for (const auto& [label, member] : lines) {
    c["series"].push_back(RrSeries(run.intervals, n, label, false, Percentile(which, member)));
  }
  return c;
}

// The body and the tail of the distribution on charts of their own: one millisecond stall in
// the max would flatten the microseconds of p50..p99 on a shared linear axis.
void AddPercentileCharts(const record::RunRecord& run, const std::string& id,
                         const std::string& title,
                         std::optional<record::LatencySummary> record::RrStats::*which,
                         Json& charts) {
  using L = record::LatencySummary;
  charts.push_back(
      PercentileChart(run, id, title + ": p50, p90, p99", which,
                      {{"p50", &L::p50_us}, {"p90", &L::p90_us}, {"p99", &L::p99_us}}));
  charts.push_back(PercentileChart(run, id + "-tail", title + ": p99.9 and max", which,
                                   {{"p99.9", &L::p999_us}, {"max", &L::max_us}}));
}

Json LossChart(const record::RunRecord& run) {
  Json c = Chart("rr-loss", "Lost requests and late responses", "transactions", false);
  c["x"] = TimeAxis(run.intervals);
  const size_t n = run.intervals.size();
  c["series"].push_back(RrSeries(run.intervals, n, "lost", false,
                                 [](const record::RrStats& rr) -> std::optional<double> {
                                   return static_cast<double>(rr.lost);
                                 }));
  c["series"].push_back(RrSeries(run.intervals, n, "late", true,
                                 [](const record::RrStats& rr) -> std::optional<double> {
                                   return static_cast<double>(rr.late);
                                 }));
  return c;
}

std::string PerTransaction(const std::optional<double>& process,
                           const std::optional<double>& host) {
  auto one = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.2f} us", *v) : std::string("unknown");
  };
  return one(process) + " (nicbench process), " + one(host) + " (whole host)";
}

void AddLatencyRows(Json& rows, const std::string& what, const record::LatencySummary& l) {
  rows.push_back({what + " p50", Us(l.p50_us)});
  rows.push_back({what + " p90", Us(l.p90_us)});
  rows.push_back({what + " p99", Us(l.p99_us)});
  rows.push_back({what + " p99.9", Us(l.p999_us)});
  rows.push_back({what + " max", Us(l.max_us)});
  rows.push_back({what + " mean", Us(l.mean_us)});
}

}  // namespace

Json RrSummaryRows(const record::RunRecord& run) {
  Json rows = Json::array();
  const record::RrSpec& spec = run.spec.rr;
  rows.push_back(
      {"test", fmt::format("{}: {}-byte requests, {}-byte responses, {} in flight per "
                           "flow, {} flows{}",
                           record::RrModeName(spec.mode), spec.request_bytes, spec.response_bytes,
                           spec.burst, run.spec.parallel, record::RrSpinNote(spec))});
  if (!run.rr) return rows;
  const record::RrSummary& s = *run.rr;
  const bool client = run.local.role != record::Role::kServer;
  std::string count = std::to_string(s.local.transactions);
  if (s.peer_transactions) {
    count += fmt::format(" ({} {})", client ? "server answered" : "client completed",
                         *s.peer_transactions);
  }
  rows.push_back({"transactions", count});
  rows.push_back({"transactions/s", fmt::format("{:.1f}", record::TransactionsPerSecond(s.local))});
  if (s.local.latency && s.local.latency->count > 0) {
    AddLatencyRows(rows, "latency", *s.local.latency);
  }
  if (s.local.connect && s.local.connect->count > 0) {
    AddLatencyRows(rows, "connect", *s.local.connect);
  }
  if (run.spec.transport == record::Transport::kUdp) {
    rows.push_back({"lost / late", fmt::format("{} / {}", s.local.lost, s.local.late)});
  }
  const std::string local = client ? "client" : "server";
  const std::string remote = client ? "server" : "client";
  const analysis::RrServiceDemand demand = analysis::ComputeRrServiceDemand(run);
  rows.push_back({"CPU per transaction, " + local,
                  PerTransaction(demand.local_process_us, demand.local_host_us)});
  rows.push_back({"CPU per transaction, " + remote,
                  PerTransaction(demand.remote_process_us, demand.remote_host_us)});
  return rows;
}

Json RrSection(const record::RunRecord& run) {
  Json charts = Json::array();
  charts.push_back(TransactionsChart(run));
  AddPercentileCharts(run, "rr-latency", "Transaction latency", &record::RrStats::latency, charts);
  if (run.spec.rr.mode == record::RrMode::kCrr) {
    AddPercentileCharts(run, "rr-connect", "Connect time", &record::RrStats::connect, charts);
  }
  if (run.spec.transport == record::Transport::kUdp) charts.push_back(LossChart(run));
  return Json{{"id", "transactions"},
              {"title", "Transactions over time"},
              {"note",
               "Every flow together; latency is the client's, from the request queued to its "
               "response read."},
              {"charts", std::move(charts)}};
}

}  // namespace nicbench::report::html
