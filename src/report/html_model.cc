// The HTML report's data: summary, findings, throughput and facts (host charts are in
// html_host_charts.cc).
#include "report/html_model.h"

#include <fmt/format.h>

#include <functional>
#include <map>

#include "analysis/compare_sets.h"
#include "analysis/drop_ladder.h"
#include "analysis/figure_table.h"
#include "analysis/stream_limits.h"
#include "record/json.h"
#include "report/format.h"
#include "report/html_chart.h"

namespace nicbench::report {
namespace {

using html::Json;

std::string DirectionTitle(const record::RunRecord& run, bool local_sends) {
  const bool client = run.local.role == record::Role::kClient;
  const std::string local = client ? "client" : "server";
  const std::string remote = client ? "server" : "client";
  return local_sends ? local + " \u2192 " + remote : remote + " \u2192 " + local;
}

// Each end's sum over the streams of one direction, in Mbit/s, one value per interval (null
// where that end has no interval at this index).
Json SumSeries(const std::vector<record::IntervalRecord>& intervals, bool sends, size_t count,
               const std::string& label, bool dash) {
  Json s = html::Series(label, label, dash, false);
  for (size_t i = 0; i < count; ++i) {
    if (i >= intervals.size()) {
      s["data"].push_back(nullptr);
      continue;
    }
    uint64_t bytes = 0;
    double seconds = 0;
    bool any = false;
    for (const auto& st : intervals[i].streams) {
      if (st.sender != sends) continue;
      bytes += st.bytes;
      seconds = st.end - st.start;
      any = true;
    }
    if (!any || seconds <= 0) {
      s["data"].push_back(nullptr);
    } else {
      s["data"].push_back(html::Round(bytes * 8.0 / seconds / 1e6, 3));
    }
  }
  return s;
}

// The per-stream stack of one end's view: one series per stream id.
void AddStreamStack(Json& chart, const std::vector<record::IntervalRecord>& intervals, bool sends,
                    const std::string& end) {
  std::map<int, Json> by_id;
  for (size_t i = 0; i < intervals.size(); ++i) {
    for (const auto& st : intervals[i].streams) {
      if (st.sender != sends) continue;
      auto [it, fresh] = by_id.try_emplace(st.id);
      if (fresh) {
        it->second =
            html::Series(fmt::format("stream {} ({})", st.id, end), "streams", false, true);
        it->second["data"] = Json::array();
        for (size_t k = 0; k < intervals.size(); ++k) it->second["data"].push_back(nullptr);
      }
      it->second["data"][i] = html::Round(st.BitsPerSecond() / 1e6, 3);
    }
  }
  if (by_id.size() < 2) return;
  for (auto& [id, series] : by_id) chart["series"].push_back(std::move(series));
}

bool HasDirection(const record::RunRecord& run, bool local_sends) {
  for (const auto& interval : run.intervals) {
    for (const auto& st : interval.streams) {
      if (st.sender == local_sends) return true;
    }
  }
  return false;
}

Json Summary(const record::RunRecord& run) {
  Json rows = Json::array();
  rows.push_back({"started", run.timestamp});
  rows.push_back({"server", fmt::format("{}:{}", run.server_host, run.server_port)});
  rows.push_back({"direction", record::DirectionName(run.spec.direction)});
  rows.push_back({"protocol", run.spec.transport == record::Transport::kUdp ? "UDP" : "TCP"});
  rows.push_back({"streams", std::to_string(run.spec.parallel)});
  rows.push_back({"duration", fmt::format("{:.1f} s", run.test_seconds)});
  if (run.spec.rr.enabled()) {
    for (auto& row : html::RrSummaryRows(run)) rows.push_back(std::move(row));
  }
  if (!run.label.empty()) rows.push_back({"label", run.label});
  rows.push_back({"made by", run.local.software});
  if (run.incomplete) rows.push_back({"state", "incomplete: " + run.error.value_or("failed")});
  return rows;
}

Json Findings(const record::RunRecord& run) {
  Json out = Json::array();
  for (const record::Finding& f : run.findings) {
    out.push_back({{"id", f.id},
                   {"severity", record::SeverityName(f.severity)},
                   {"title", f.title},
                   {"evidence", f.evidence},
                   {"meaning", f.meaning},
                   {"next_step", f.next_step}});
  }
  return out;
}

// Flattens a JSON value to "path" -> text; arrays of scalars and short objects become one text.
void Flatten(const nlohmann::json& j, const std::string& path,
             std::map<std::string, std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      if (key == "unknown") continue;
      Flatten(value, path.empty() ? key : path + "." + key, out);
    }
    if (j.contains("unknown")) {
      for (const auto& [key, why] : j["unknown"].items()) {
        out[path.empty() ? key : path + "." + key] = "unknown: " + why.get<std::string>();
      }
    }
  } else if (j.is_array()) {
    if (j.size() > 64) {
      out[path] = fmt::format("{} entries", j.size());
      return;
    }
    for (size_t i = 0; i < j.size(); ++i) {
      const auto& e = j[i];
      // Offloads and IRQ vectors read best keyed by their name.
      std::string key = e.is_object() && e.contains("name") && e["name"].is_string()
                            ? e["name"].get<std::string>()
                            : std::to_string(i);
      Flatten(e, path + "." + key, out);
    }
  } else if (j.is_string()) {
    out[path] = j.get<std::string>();
  } else if (!j.is_null()) {
    out[path] = j.dump();
  }
}

std::map<std::string, std::string> EndFacts(const record::EndpointRecord& end) {
  std::map<std::string, std::string> out;
  nlohmann::json host = end.host, nic = end.nic;
  Flatten(host, "host", out);
  Flatten(nic, "nic", out);
  out["software"] = end.software;
  if (!end.congestion_used.empty()) out["tcp.congestion"] = end.congestion_used;
  return out;
}

// Counters the kernel and the driver keep since the interface came up (statistics, ethtool -S
// at the start and end of the test): two hosts never agree on them, and that is no difference
// of configuration. The drop ladder and the findings read what moved during the test.
bool SinceBootCounter(const std::string& name) {
  for (const char* prefix : {"nic.counters.", "nic.driver_stats.", "nic.driver_stats_after."}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace

namespace html {

std::string TimeLabel(double seconds) { return fmt::format("{:.1f}", seconds); }

std::vector<std::pair<std::string, const record::EndpointRecord*>> Ends(
    const record::RunRecord& run) {
  std::vector<std::pair<std::string, const record::EndpointRecord*>> ends;
  ends.emplace_back(record::RoleName(run.local.role), &run.local);
  if (run.remote.known()) {
    const auto& r = run.remote.value();
    ends.emplace_back(record::RoleName(r.role), &r);
  }
  return ends;
}

}  // namespace html

Json ThroughputCharts(const record::RunRecord& run) {
  Json charts = Json::array();
  const std::string local = html::Ends(run)[0].first;
  const std::string remote = local == "client" ? "server" : "client";
  for (bool local_sends : {true, false}) {
    if (!HasDirection(run, local_sends)) continue;
    Json c = html::Chart(local_sends ? "throughput-up" : "throughput-down",
                         "Throughput " + DirectionTitle(run, local_sends), "Mbit/s", true);
    c["x"] = html::TimeAxis(run.intervals);
    const size_t n = run.intervals.size();
    // The receiver counts what arrived: its per-stream view is the stack.
    const bool remote_receives = local_sends;
    if (!remote_receives || !run.remote.known()) {
      AddStreamStack(c, run.intervals, local_sends, local);
    } else {
      AddStreamStack(c, run.remote.value().intervals, !local_sends, remote);
    }
    c["series"].push_back(
        SumSeries(run.intervals, local_sends, n, "sum, " + local + "'s view", false));
    if (run.remote.known()) {
      c["series"].push_back(SumSeries(run.remote.value().intervals, !local_sends, n,
                                      "sum, " + remote + "'s view", true));
    } else {
      c["note"] =
          remote + "'s view: " + record::UnknownReason(run.remote.why(), run.remote.detail());
    }
    charts.push_back(std::move(c));
  }
  return charts;
}

Json FactRows(const record::RunRecord& run) {
  auto ends = html::Ends(run);
  auto a = EndFacts(*ends[0].second);
  std::map<std::string, std::string> b;
  if (ends.size() > 1) b = EndFacts(*ends[1].second);
  std::map<std::string, bool> names;
  for (const auto& [k, v] : a) names[k] = true;
  for (const auto& [k, v] : b) names[k] = true;
  Json rows = Json::array();
  for (const auto& [name, unused] : names) {
    const std::string va = a.count(name) ? a[name] : "";
    const std::string vb = ends.size() > 1 ? (b.count(name) ? b[name] : "") : "not reported";
    rows.push_back({name, va, vb, ends.size() > 1 && va != vb && !SinceBootCounter(name)});
  }
  return rows;
}

Json DropLadderRows(const record::RunRecord& run) {
  auto ends = html::Ends(run);
  std::vector<std::vector<analysis::Rung>> ladders;
  ladders.reserve(ends.size());
  for (const auto& e : ends) ladders.push_back(analysis::DropLadderOf(run, *e.second));
  Json rows = Json::array();
  for (size_t r = 0; r < ladders[0].size(); ++r) {
    Json row = Json::array({ladders[0][r].name});
    for (const auto& ladder : ladders) row.push_back(analysis::RungText(ladder[r]));
    if (ends.size() < 2) row.push_back("unknown (the remote end did not report)");
    rows.push_back(std::move(row));
  }
  return rows;
}

Json StreamLimitRows(const record::RunRecord& run) {
  Json rows = Json::array();
  for (const analysis::StreamLimit& s : analysis::StreamLimits(run)) {
    rows.push_back({std::to_string(s.id), s.local_sends ? "local" : "remote",
                    fmt::format("{} ({:.0f}%)", analysis::LimitName(s.limit), s.limit_share * 100),
                    fmt::format("busy {:.2f} s of {:.2f} s: receive window {:.2f} s, send buffer "
                                "{:.2f} s, network {:.2f} s",
                                s.busy_seconds, s.seconds, s.rwnd_limited_seconds,
                                s.sndbuf_limited_seconds, s.network_seconds)});
  }
  return rows;
}

Json FigureRows(const record::RunRecord& run) {
  const analysis::FigureValues values = analysis::ComputeFigureValues(run);
  Json rows = Json::array();
  for (const analysis::Figure& f : analysis::Figures()) {
    // The groups history shows for this run: request/response and under-load only for their runs.
    if (f.group == analysis::FigureGroup::kRr && !run.spec.rr.enabled()) continue;
    if (f.group == analysis::FigureGroup::kUnderLoad && !run.under_load) continue;
    const record::Measured<double>& v = values[f];
    rows.push_back({analysis::MetricName(f, run.spec.direction),
                    v.known() ? fmt::format("{:.6g}", v.value())
                              : "unknown (" + record::UnknownReason(v.why(), v.detail()) + ")",
                    f.unit, f.key});
  }
  return rows;
}

nlohmann::ordered_json BuildHtmlModel(const record::RunRecord& run) {
  auto ends = html::Ends(run);
  Json m;
  const std::string what = run.spec.rr.enabled()
                               ? fmt::format("{} {}", record::TransportName(run.spec.transport),
                                             record::RrModeName(run.spec.rr.mode))
                               : record::DirectionName(run.spec.direction);
  m["title"] = fmt::format("nicbench run {} {}", run.timestamp, what);
  m["summary"] = Summary(run);
  m["findings"] = Findings(run);
  Json sections = Json::array();
  if (run.spec.rr.enabled()) {
    sections.push_back(html::RrSection(run));
  } else {
    sections.push_back({{"id", "throughput"},
                        {"title", "Throughput over time"},
                        {"note", "Each direction as both ends counted it; they should agree."},
                        {"charts", ThroughputCharts(run)}});
  }
  if (run.under_load) sections.push_back(html::LatencySection(run));
  sections.push_back(html::CpuSection(run));
  sections.push_back(html::IrqSection(run));
  if (run.spec.transport == record::Transport::kTcp) sections.push_back(html::TcpSection(run));
  m["sections"] = std::move(sections);
  Json names = Json::array();
  for (const auto& e : ends) names.push_back(e.first);
  if (ends.size() < 2) names.push_back(ends[0].first == "client" ? "server" : "client");
  m["facts"] = {{"ends", names}, {"rows", FactRows(run)}};
  if (!run.spec.rr.enabled()) m["drop_ladder"] = {{"ends", names}, {"rows", DropLadderRows(run)}};
  m["stream_limits"] = StreamLimitRows(run);
  m["figures"] = FigureRows(run);
  return m;
}

}  // namespace nicbench::report
