// Several runs as an HTML page: an experiment's variants (or the sets a user named), a bar chart
// per metric with each variant's median, its min and max and n, the U test against the first
// variant as `compare` prints it, what differs from the first variant and what differs inside
// one. The variants come in the caller's order, the one `matrix` and `compare` print.
#include <fmt/format.h>

#include "report/compare_report.h"
#include "report/html_chart.h"
#include "report/html_report.h"

namespace nicbench::report {
namespace {

using html::Json;

// Bits per second are drawn in Mbit/s; other units as they are.
double Scale(const std::string& unit) { return unit == "bit/s" ? 1e-6 : 1.0; }
std::string ShownUnit(const std::string& unit) { return unit == "bit/s" ? "Mbit/s" : unit; }

const analysis::MetricComparison* Find(const analysis::SetComparison& c, const char* key) {
  for (const auto& m : c.metrics) {
    if (std::string(m.metric->key) == key) return &m;
  }
  return nullptr;
}

// The variant's own summary of a metric: side b of its comparison with the first.
std::optional<analysis::Summary> Own(const MatrixTable& t, size_t v, const char* key) {
  const auto* m = Find(t.versus_first[v], key);
  if (m == nullptr) return std::nullopt;
  return m->comparison.b;
}

std::string VariantLabel(const MatrixTable& t, size_t v, const char* key) {
  auto s = Own(t, v, key);
  return fmt::format("{} (n={})", t.variants[v], s ? s->n : 0);
}

Json MetricChart(const MatrixTable& t, const analysis::MetricComparison& first) {
  const std::string unit = first.metric->unit;
  const double k = Scale(unit);
  Json c = html::Chart(std::string("metric-") + first.metric->key,
                       analysis::MetricName(*first.metric, t.versus_first[0].direction),
                       ShownUnit(unit), false);
  c["type"] = "bar";
  c["xtitle"] = "variant";
  Json median = html::Series("median", "median", false, true);
  Json low = html::Series("min", "min", false, false),
       high = html::Series("max", "max", false, false);
  low["points"] = high["points"] = true;
  for (size_t v = 0; v < t.variants.size(); ++v) {
    c["x"].push_back(VariantLabel(t, v, first.metric->key));
    auto s = Own(t, v, first.metric->key);
    median["data"].push_back(s ? Json(html::Round(s->median * k, 4)) : Json(nullptr));
    low["data"].push_back(s ? Json(html::Round(s->min * k, 4)) : Json(nullptr));
    high["data"].push_back(s ? Json(html::Round(s->max * k, 4)) : Json(nullptr));
  }
  c["series"] = Json::array({median, low, high});
  return c;
}

std::string Num(double v, const std::string& unit) {
  return fmt::format("{:.4g} {}", v * Scale(unit), ShownUnit(unit));
}

// Each variant against the first for every metric, as compare prints it.
std::string VerdictTable(const MatrixTable& t) {
  std::string out =
      "<section id=\"tests\" aria-labelledby=\"tests-h\"><h2 id=\"tests-h\">Each variant against "
      "the first</h2><p class=\"note\">Mann-Whitney U test, two-sided; a change is shown only when "
      "p &lt; 0.05, otherwise <b>~</b>. With three runs a side no test can reach 0.05: "
      "&ldquo;~ (too few runs)&rdquo;.</p><div class=\"table-wrap\" tabindex=\"0\"><table>"
      "<caption>Medians, spread, change and p</caption><thead><tr><th scope=\"col\">metric</th>"
      "<th scope=\"col\">variant</th><th scope=\"col\">n</th><th scope=\"col\">median</th>"
      "<th scope=\"col\">min .. max</th><th scope=\"col\">change</th><th scope=\"col\">p</th>"
      "</tr></thead><tbody>";
  for (const auto& m0 : t.versus_first[0].metrics) {
    for (size_t v = 0; v < t.variants.size(); ++v) {
      const auto* m = Find(t.versus_first[v], m0.metric->key);
      if (m == nullptr || !m->comparison.b) continue;
      const auto& s = *m->comparison.b;
      const std::string unit = m->metric->unit;
      out += fmt::format(
          "<tr><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{}</td><td>{}</td>"
          "<td>{} .. {}</td><td>{}</td><td>{}</td></tr>",
          HtmlEscape(analysis::MetricName(*m->metric, t.versus_first[v].direction)),
          HtmlEscape(t.variants[v]), s.n, Num(s.median, unit), Num(s.min, unit), Num(s.max, unit),
          v == 0 ? "(first)" : HtmlEscape(ChangeText(m->comparison)),
          v == 0 || !m->comparison.test ? "" : fmt::format("{:.3f}", m->comparison.test->p));
    }
  }
  return out + "</tbody></table></div></section>";
}

std::string Values(const std::vector<analysis::ValueCount>& values) {
  if (values.empty()) return "(not reported)";
  std::string text;
  for (const auto& v : values) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} ({})", v.value, v.runs);
  }
  return HtmlEscape(text);
}

std::string DiffersBetweenRows(const MatrixTable& t) {
  std::string rows;
  for (size_t v = 1; v < t.variants.size(); ++v) {
    for (const auto& d : t.versus_first[v].differs) {
      if (!d.between) continue;
      rows += fmt::format("<tr class=\"differs\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                          HtmlEscape(d.name), HtmlEscape(t.variants[v]), Values(d.a), Values(d.b));
    }
  }
  return rows;
}

// A fact with several values inside one variant, as compare's "Differs inside one set": the
// first variant's from its comparison with itself, every other's from its side b.
std::string DiffersInsideRows(const MatrixTable& t) {
  std::string rows;
  for (size_t v = 0; v < t.variants.size(); ++v) {
    for (const auto& d : t.versus_first[v].differs) {
      if (!(v == 0 ? d.a_mixed : d.b_mixed)) continue;
      rows += fmt::format("<tr class=\"differs\"><td>{}</td><td>{}</td><td>{}</td></tr>",
                          HtmlEscape(d.name), HtmlEscape(t.variants[v]), Values(d.b));
    }
  }
  return rows;
}

std::string DiffersInside(const MatrixTable& t) {
  const std::string rows = DiffersInsideRows(t);
  if (rows.empty()) return "";
  return "<section id=\"differs-inside\" aria-labelledby=\"differs-inside-h\"><h2 "
         "id=\"differs-inside-h\">Differs inside one set</h2><p class=\"warning\">Such a set is "
         "not one configuration: its runs ran with different values of these facts, and its "
         "figures mix them.</p><div class=\"table-wrap\" tabindex=\"0\"><table class=\"facts\">"
         "<caption>Facts with several values inside one set</caption><thead><tr><th "
         "scope=\"col\">fact</th><th scope=\"col\">set</th><th scope=\"col\">values (runs)"
         "</th></tr></thead><tbody>" +
         rows + "</tbody></table></div></section>";
}

std::string DiffersTable(const MatrixTable& t) {
  const std::string rows = DiffersBetweenRows(t);
  std::string out = fmt::format(
      "<section id=\"differs\" aria-labelledby=\"differs-h\"><h2 id=\"differs-h\">What differs "
      "from the first variant ({})</h2>",
      HtmlEscape(t.variants[0]));
  if (rows.empty()) {
    return out +
           "<p class=\"empty\">Nothing: every variant ran with the same options and "
           "facts.</p></section>" +
           DiffersInside(t);
  }
  return out +
         "<p class=\"note\">Values with the number of runs that had them.</p>"
         "<div class=\"table-wrap\" tabindex=\"0\"><table class=\"facts\"><caption>Facts "
         "that differ</caption><thead><tr><th scope=\"col\">fact</th><th scope=\"col\">"
         "variant</th><th scope=\"col\">first variant</th><th scope=\"col\">this variant"
         "</th></tr></thead><tbody>" +
         rows + "</tbody></table></div></section>" + DiffersInside(t);
}

// The header: an experiment's id and seed (as `matrix` prints them), or the sets as the user
// named them with their runs, the first marked as the baseline.
std::string Summary(const MatrixTable& t, const std::vector<SetName>& sets) {
  std::string out = "<dl class=\"summary\">";
  if (t.experiment != 0) {
    out +=
        fmt::format("<div><dt>experiment</dt><dd>{}</dd></div><div><dt>seed</dt><dd>{}</dd></div>",
                    t.experiment, t.seed);
  }
  out += fmt::format("<div><dt>{}</dt><dd>{}</dd></div></dl>", sets.empty() ? "variants" : "sets",
                     t.variants.size());
  if (sets.empty()) return out;
  out += "<ol class=\"sets\">";
  for (size_t i = 0; i < sets.size(); ++i) {
    out += fmt::format("<li><b>{}</b>: {} runs ({}){}</li>", HtmlEscape(sets[i].selector),
                       sets[i].ids.size(), IdsText(sets[i].ids),
                       i == 0 ? ", the baseline each set is compared with" : "");
  }
  return out + "</ol>";
}

}  // namespace

std::string RenderHtmlMatrix(const MatrixTable& t, const std::string& title,
                             const std::vector<SetName>& sets) {
  Json charts = Json::array();
  if (!t.versus_first.empty()) {
    for (const auto& m : t.versus_first[0].metrics) charts.push_back(MetricChart(t, m));
  }
  Json section{{"id", "metrics"},
               {"title", "Each metric by variant"},
               {"note",
                "Bar: the median of the variant's runs; marks: its lowest and highest "
                "run; n: how many runs."},
               {"charts", std::move(charts)}};
  Json page{{"runs",
             Json::array({Json{{"anchor", "nb-charts-0"}, {"sections", Json::array({section})}}})}};
  std::string body = "<header><h1>" + HtmlEscape(title) + "</h1>" + Summary(t, sets) +
                     "</header>\n<main id=\"main\">\n<div id=\"nb-charts-0\"><p class=\"empty\">"
                     "The charts need the page's script.</p></div>\n" +
                     (t.versus_first.empty() ? "" : VerdictTable(t) + DiffersTable(t)) + "</main>";
  return RenderHtmlPage(title, body, page);
}

}  // namespace nicbench::report
