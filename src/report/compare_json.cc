// `nicbench compare` and `nicbench matrix` as JSON and CSV. No NaN: every number here comes
// from finite samples; an unknown one is null (JSON) or an empty cell (CSV).
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "record/json.h"
#include "report/compare_report.h"

namespace nicbench::report {
namespace {

using analysis::Comparison;
using analysis::MetricComparison;
using analysis::SetComparison;
using analysis::Verdict;
using Json = nlohmann::ordered_json;

Json Number(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kSignificant: return "significant";
    case Verdict::kNotSignificant: return "not significant";
    case Verdict::kTooFew: return "too few runs";
  }
  return "?";
}

Json SummaryJson(const std::optional<analysis::Summary>& s, const analysis::MetricValues& v) {
  Json j;
  j["n"] = s ? s->n : 0;
  j["unknown"] = v.unknown;
  j["why_unknown"] = v.unknown > 0 ? Json(v.why_unknown) : Json(nullptr);
  // Known values kept out of the test for their caveat (other traffic beside the test).
  j["left_out"] = v.left_out;
  j["caveat"] = v.left_out > 0 ? Json(v.caveat) : Json(nullptr);
  for (const char* key : {"median", "min", "max", "q1", "q3"}) j[key] = nullptr;
  if (s) {
    j["median"] = s->median, j["min"] = s->min, j["max"] = s->max;
    j["q1"] = s->q1, j["q3"] = s->q3;
  }
  return j;
}

Json MetricJson(const MetricComparison& m, std::optional<record::Direction> direction) {
  const Comparison& c = m.comparison;
  Json j;
  j["key"] = m.metric->key;
  j["name"] = analysis::MetricName(*m.metric, direction);
  j["unit"] = m.metric->unit;
  j["a"] = SummaryJson(c.a, m.a);
  j["b"] = SummaryJson(c.b, m.b);
  // A change that is noise is not written as a number a script could mistake for a result.
  j["change_percent"] = c.verdict == Verdict::kSignificant ? Number(c.change_percent) : nullptr;
  j["median_change_percent"] = Number(c.change_percent);
  j["p"] = c.test ? Number(c.test->p) : nullptr;
  j["exact"] = c.test ? c.test->exact : false;
  j["verdict"] = VerdictName(c.verdict);
  return j;
}

Json ValuesJson(const std::vector<analysis::ValueCount>& values) {
  Json j = Json::array();
  for (const auto& v : values) j.push_back({{"value", v.value}, {"runs", v.runs}});
  return j;
}

Json ComparisonJson(const SetComparison& c) {
  Json j;
  j["direction"] = c.direction ? Json(record::DirectionName(*c.direction)) : Json(nullptr);
  j["alpha"] = analysis::kAlpha;
  j["metrics"] = Json::array();
  for (const MetricComparison& m : c.metrics) j["metrics"].push_back(MetricJson(m, c.direction));
  j["differs"] = Json::array();
  for (const auto& d : c.differs) {
    j["differs"].push_back({{"fact", d.name},
                            {"a", ValuesJson(d.a)},
                            {"b", ValuesJson(d.b)},
                            {"between", d.between},
                            {"a_mixed", d.a_mixed},
                            {"b_mixed", d.b_mixed}});
  }
  return j;
}

std::string Dump(const Json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string Cell(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return "";
  return fmt::format("{:.9g}", *v);
}

// RFC 4180: a field with a comma, quote or newline is quoted, quotes doubled.
std::string Quoted(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string SummaryCells(const std::optional<analysis::Summary>& s) {
  if (!s) return "0,,,,,";
  return fmt::format("{},{},{},{},{},{}", s->n, Cell(s->median), Cell(s->min), Cell(s->max),
                     Cell(s->q1), Cell(s->q3));
}

std::string VerdictCells(const Comparison& c) {
  const bool sig = c.verdict == Verdict::kSignificant;
  return fmt::format("{},{},{}", sig ? Cell(c.change_percent) : "", c.test ? Cell(c.test->p) : "",
                     VerdictName(c.verdict));
}

}  // namespace

std::string RenderCompareJson(const SetComparison& c, const SetName& a, const SetName& b) {
  Json j;
  j["a"] = {{"selector", a.selector}, {"runs", c.runs_a}, {"ids", a.ids}};
  j["b"] = {{"selector", b.selector}, {"runs", c.runs_b}, {"ids", b.ids}};
  const Json body = ComparisonJson(c);
  for (const char* key : {"direction", "alpha", "metrics", "differs"}) j[key] = body[key];
  return Dump(j);
}

std::string RenderCompareCsv(const SetComparison& c) {
  std::string out =
      "metric,unit,a_n,a_median,a_min,a_max,a_q1,a_q3,b_n,b_median,b_min,b_max,b_q1,b_q3,"
      "change_percent,p,verdict\n";
  for (const MetricComparison& m : c.metrics) {
    out += fmt::format("{},{},{},{},{}\n", Quoted(analysis::MetricName(*m.metric, c.direction)),
                       m.metric->unit, SummaryCells(m.comparison.a), SummaryCells(m.comparison.b),
                       VerdictCells(m.comparison));
  }
  return out;
}

std::string RenderMatrixJson(const MatrixTable& t) {
  Json j;
  j["experiment"] = t.experiment;
  j["seed"] = t.seed;
  j["variants"] = Json::array();
  for (size_t i = 0; i < t.variants.size() && i < t.versus_first.size(); ++i) {
    Json v;
    v["name"] = t.variants[i];
    v["runs"] = t.versus_first[i].runs_b;
    v["versus_first"] = ComparisonJson(t.versus_first[i]);
    j["variants"].push_back(v);
  }
  return Dump(j);
}

std::string RenderMatrixCsv(const MatrixTable& t) {
  std::string out =
      "variant,metric,unit,n,median,min,max,q1,q3,change_percent_vs_first,"
      "p_vs_first,verdict_vs_first\n";
  for (size_t i = 0; i < t.variants.size() && i < t.versus_first.size(); ++i) {
    for (const MetricComparison& m : t.versus_first[i].metrics) {
      out += fmt::format("{},{},{},{},{}\n", Quoted(t.variants[i]),
                         Quoted(analysis::MetricName(*m.metric, std::nullopt)), m.metric->unit,
                         SummaryCells(m.comparison.b),
                         i == 0 ? ",,first" : VerdictCells(m.comparison));
    }
  }
  return out;
}

}  // namespace nicbench::report
