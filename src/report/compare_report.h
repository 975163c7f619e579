// Renders a comparison of two sets of runs (`nicbench compare`) and an experiment's table
// (`nicbench matrix`) as terminal text, JSON for scripts and CSV for spreadsheets. The figures,
// statistics and what differs come computed from analysis/compare_sets.h; this only formats.
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/compare_sets.h"

namespace nicbench::report {

// The two sets as the user named them ("label:tso=on") and which stored runs they hold.
struct SetName {
  std::string selector;
  std::vector<int64_t> ids;
};

// The text: one line per metric (A's median [min-max] n, B's, the change, p), the legend of
// `~`, then what differs between the sets and inside each.
std::string RenderCompareText(const analysis::SetComparison& c, const SetName& a, const SetName& b);
// {"a": {...}, "b": {...}, "metrics": [{key, name, unit, a: {n, unknown, median, min, max, q1,
// q3}, b, change_percent, p, exact, verdict}], "differs": [{fact, a: [{value, runs}], b,
// between, a_mixed, b_mixed}]}. Unknown numbers are null. Indented, one trailing newline.
std::string RenderCompareJson(const analysis::SetComparison& c, const SetName& a, const SetName& b);
// One header row, then one row per metric: metric,unit,a_n,a_median,a_min,a_max,a_q1,a_q3,
// b_n,...,change_percent,p,verdict. change_percent is empty unless significant.
std::string RenderCompareCsv(const analysis::SetComparison& c);

// An experiment: each variant's name (its labels, "tso=on direction=forward") and its
// comparison with the first variant (the first compared with itself gives its own summaries).
struct MatrixTable {
  int64_t experiment = 0;
  uint64_t seed = 0;
  std::vector<std::string> variants;
  std::vector<analysis::SetComparison> versus_first;  // one per variant, same order
};
// Variants x metrics (median [min-max] n), then each variant against the first as compare.
std::string RenderMatrixText(const MatrixTable& t);
std::string RenderMatrixJson(const MatrixTable& t);
// One row per variant and metric: variant,metric,unit,n,median,min,max,q1,q3,
// change_percent_vs_first,p_vs_first,verdict_vs_first.
std::string RenderMatrixCsv(const MatrixTable& t);

// "1,3,5" or, past twelve, "1,2,...,12,... (40 runs)": a set's run ids for a header.
std::string IdsText(const std::vector<int64_t>& ids);

// "~", "~ (too few runs)" or "+12.3%": the change column of a metric.
std::string ChangeText(const analysis::Comparison& c);

}  // namespace nicbench::report
