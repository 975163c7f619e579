// Small builders of the HTML report's chart objects (see html_model.h). Internal to src/report.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/run_record.h"

namespace nicbench::report::html {

using Json = nlohmann::ordered_json;

// x to `digits` decimals: keeps the page small without changing what a reader sees.
inline double Round(double x, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(x * scale) / scale;
}

inline Json Chart(const std::string& id, const std::string& title, const std::string& unit,
                  bool stacked) {
  return Json{{"id", id},
              {"title", title},
              {"note", ""},
              {"unit", unit},
              {"stacked", stacked},
              {"x", Json::array()},
              {"series", Json::array()}};
}

inline Json Series(const std::string& label, const std::string& stack, bool dash, bool fill) {
  return Json{
      {"label", label}, {"data", Json::array()}, {"stack", stack}, {"dash", dash}, {"fill", fill}};
}

// "1.0", "2.5": an interval's end as the x label, in seconds.
std::string TimeLabel(double seconds);

// The x labels of a sequence of samples or intervals (their ends).
template <typename T>
Json TimeAxis(const std::vector<T>& items) {
  Json x = Json::array();
  for (const T& item : items) x.push_back(TimeLabel(item.end));
  return x;
}

// One section per end: CPU per core, interrupts, softnet; TCP over time (html_host_charts.cc).
Json CpuSection(const record::RunRecord& run);
Json IrqSection(const record::RunRecord& run);
Json TcpSection(const record::RunRecord& run);

// A request/response test (html_rr.cc): its rows of the summary table, and its section of
// charts (transactions/s, latency percentiles, connect times, loss) over the intervals.
Json RrSummaryRows(const record::RunRecord& run);
Json RrSection(const record::RunRecord& run);
// run --under-load (html_latency.cc): the probes' quantiles idle and loaded, the queues over time.
Json LatencySection(const record::RunRecord& run);

// The ends of a run as (name, record) pairs, local first; remote only when known.
std::vector<std::pair<std::string, const record::EndpointRecord*>> Ends(
    const record::RunRecord& run);

}  // namespace nicbench::report::html
