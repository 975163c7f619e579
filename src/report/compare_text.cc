// `nicbench compare` and `nicbench matrix` as terminal text.
#include <fmt/format.h>

#include "base/units.h"
#include "report/compare_report.h"
#include "report/format.h"
#include "report/terminal_text.h"

namespace nicbench::report {
namespace {

using analysis::Comparison;
using analysis::MetricComparison;
using analysis::SetComparison;
using analysis::Verdict;

// "10.99 Gbits/sec [10.88 .. 11.10] n=5": the median with its unit, the range in the median's
// scale, then n.
// The runs a summary leaves out: unknown ones with the first reason, and known ones whose
// caveat (other traffic beside the test) keeps them out of the test.
std::string LeftOutText(const analysis::MetricValues& v, bool alone) {
  std::string text;
  if (v.unknown > 0) {
    text += alone ? fmt::format("unknown in {} runs: {}", v.unknown, v.why_unknown)
                  : fmt::format("{} unknown: {}", v.unknown, v.why_unknown);
  }
  if (v.left_out > 0) {
    text += fmt::format("{}{} left out of the test: {}", text.empty() ? "" : "; ", v.left_out,
                        v.caveat);
  }
  return text;
}

std::string Spread(const std::optional<analysis::Summary>& s, const analysis::Figure& metric,
                   const analysis::MetricValues& values) {
  if (!s) {
    const std::string left = LeftOutText(values, true);
    return left.empty() ? "no runs" : left;
  }
  const std::string unit = metric.unit;
  std::string text;
  if (analysis::IsRrMetric(metric) && (unit == "us" || unit == "us/tx")) {
    // A transaction takes tens of microseconds: a tenth (a hundredth of CPU time) tells apart.
    const int digits = unit == "us" ? 1 : 2;
    text = fmt::format("{:.{}f} {} [{:.{}f} .. {:.{}f}]", s->median, digits, unit, s->min, digits,
                       s->max, digits);
  } else if (unit == "tx/s") {
    text = fmt::format("{:.1f} tx/s [{:.1f} .. {:.1f}]", s->median, s->min, s->max);
  } else if (unit == "bit/s") {
    const Scaled m = ScaleBy(s->median, 1000.0);
    double scale = 1;
    for (int i = 0; i < m.unit; ++i) scale *= 1000;
    text = fmt::format("{:.2f} {} [{:.2f} .. {:.2f}]", m.value, kBitRateUnits[m.unit],
                       s->min / scale, s->max / scale);
  } else if (unit == "irq/GB") {
    text = fmt::format("{} irq/GB [{} .. {}]", CompactCount(s->median), CompactCount(s->min),
                       CompactCount(s->max));
  } else if (unit == "us") {
    text = fmt::format("{:.0f} us [{:.0f} .. {:.0f}]", s->median, s->min, s->max);
  } else if (unit == "RPM") {
    text = fmt::format("{:.0f} RPM [{:.0f} .. {:.0f}]", s->median, s->min, s->max);
  } else {
    // Milliseconds of latency under load and the probes' share keep three significant digits.
    const std::string suffix = unit == "CPU-s/GB" || unit == "ms" || unit == "%" ? " " + unit : "";
    text = fmt::format("{:.3g}{} [{:.3g} .. {:.3g}]", s->median, suffix, s->min, s->max);
  }
  text += fmt::format(" n={}", s->n);
  const std::string left = LeftOutText(values, false);
  if (!left.empty()) text += " (" + left + ")";
  return text;
}

std::string PText(const Comparison& c) {
  if (!c.test) return "";
  return fmt::format("p={:.3f}", c.test->p);
}

std::string ValuesText(const std::vector<analysis::ValueCount>& values) {
  if (values.empty()) return "(not reported)";
  std::string text;
  for (const auto& v : values) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} ({})", v.value, v.runs);
  }
  return text;
}

std::string MetricLines(const SetComparison& c, const char* a_name, const char* b_name) {
  std::string out;
  for (const MetricComparison& m : c.metrics) {
    out += fmt::format("  {}\n", analysis::MetricName(*m.metric, c.direction));
    out += fmt::format("    {}  {}\n", a_name, Spread(m.comparison.a, *m.metric, m.a));
    out += fmt::format("    {}  {}\n", b_name, Spread(m.comparison.b, *m.metric, m.b));
    out += fmt::format("    change {}  {}\n", ChangeText(m.comparison), PText(m.comparison));
  }
  return out;
}

std::string DiffersLines(const SetComparison& c, const char* a_name, const char* b_name) {
  std::string between, inside;
  for (const auto& d : c.differs) {
    if (d.between) {
      between += fmt::format("  {}\n    {}  {}\n    {}  {}\n", d.name, a_name, ValuesText(d.a),
                             b_name, ValuesText(d.b));
    }
    if (d.a_mixed) inside += fmt::format("  {} {}: {}\n", a_name, d.name, ValuesText(d.a));
    if (d.b_mixed) inside += fmt::format("  {} {}: {}\n", b_name, d.name, ValuesText(d.b));
  }
  std::string out = "\nWhat differs:\n";
  out += between.empty() ? "  nothing: both sets ran with the same options and facts\n" : between;
  if (!inside.empty()) {
    out += "\nDiffers inside one set (such a set is not one configuration):\n" + inside;
  }
  return out;
}

const char kLegend[] =
    "\n~ : no difference shown: not significant at p < 0.05 (two-sided Mann-Whitney U test), or\n"
    "    too few runs to tell (3 runs a side can never reach p < 0.05; 5 a side can)\n";

}  // namespace

std::string IdsText(const std::vector<int64_t>& ids) {
  std::string text;
  for (size_t i = 0; i < ids.size() && i < 12; ++i) text += (i ? "," : "") + std::to_string(ids[i]);
  if (ids.size() > 12) text += fmt::format(",... ({} runs)", ids.size());
  return text;
}

std::string ChangeText(const Comparison& c) {
  if (!c.a || !c.b) return "~ (not measured in both sets)";
  if (c.verdict == Verdict::kTooFew) return "~ (too few runs)";
  if (c.verdict == Verdict::kNotSignificant) return "~";
  if (!c.change_percent) return "significant (A's median is 0)";
  return fmt::format("{:+.1f}%", *c.change_percent);
}

std::string RenderCompareText(const SetComparison& c, const SetName& a, const SetName& b) {
  std::string out = fmt::format("A: {}  ({} runs: {})\nB: {}  ({} runs: {})\n\n", a.selector,
                                c.runs_a, IdsText(a.ids), b.selector, c.runs_b, IdsText(b.ids));
  out += c.metrics.empty() ? "  no metric is known in either set\n" : MetricLines(c, "A", "B");
  out += kLegend;
  out += DiffersLines(c, "A", "B");
  // Selectors, labels and facts come from the store, and facts from peers' records.
  return TerminalSafeLines(out);
}

std::string RenderMatrixText(const MatrixTable& t) {
  std::string out = fmt::format("experiment {}  seed {}  {} variants\n\n", t.experiment, t.seed,
                                t.variants.size());
  for (size_t i = 0; i < t.variants.size() && i < t.versus_first.size(); ++i) {
    const SetComparison& c = t.versus_first[i];
    out += fmt::format("variant {}: {}\n", i + 1, t.variants[i]);
    for (const MetricComparison& m : c.metrics) {
      if (!m.comparison.b) continue;  // not measured in this variant (another direction)
      out += fmt::format("  {:<40} {}\n", analysis::MetricName(*m.metric, std::nullopt),
                         Spread(m.comparison.b, *m.metric, m.b));
    }
  }
  for (size_t i = 1; i < t.variants.size() && i < t.versus_first.size(); ++i) {
    const std::string a = "variant 1: " + t.variants[0];
    const std::string b = fmt::format("variant {}: {}", i + 1, t.variants[i]);
    out += fmt::format("\n{} against {}\n", b, a);
    const SetComparison& c = t.versus_first[i];
    for (const MetricComparison& m : c.metrics) {
      out += fmt::format("  {:<40} {:<18} {}\n", analysis::MetricName(*m.metric, std::nullopt),
                         ChangeText(m.comparison), PText(m.comparison));
    }
    std::string differs = DiffersLines(c, "1", std::to_string(i + 1).c_str());
    out += differs;
  }
  out += kLegend;
  return TerminalSafeLines(out);  // variants are labels from the store
}

}  // namespace nicbench::report
