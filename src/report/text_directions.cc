// The two directions side by side (analysis/directions.h) as a terminal table, with the findings
// that need both directions under it. docs/output.md, "Both directions".
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/units.h"
#include "report/terminal_text.h"
#include "report/text_lines.h"
#include "report/text_report.h"

namespace nicbench::report {
namespace {

// The unit column: a rate carries its unit in the value.
std::string UnitText(const analysis::DirectionRow& row) {
  return row.unit == "bit/s" ? "" : row.unit;
}

// "unknown [2]": the reasons are long and alike across rows, so each is listed once under the
// table and the cell points at it.
std::string CellText(const analysis::DirectionRow& row, const analysis::DirectionValue& v,
                     std::vector<std::string>& reasons) {
  if (v.value) return text::DirectionValueText(row.unit, *v.value);
  auto it = std::find(reasons.begin(), reasons.end(), v.why);
  if (it == reasons.end()) it = reasons.insert(reasons.end(), v.why);
  return fmt::format("unknown [{}]", it - reasons.begin() + 1);
}

}  // namespace

namespace text {

// About three significant figures without an exponent: "5.22e+04" is not read by people (issue
// 27 item 6).
std::string DirectionValueText(const std::string& unit, double value) {
  if (unit == "bit/s") return FormatBitRate(value);
  if (unit == "segments" || unit == "packets" || unit == "interrupts/GB") {
    return fmt::format("{:.0f}", value);
  }
  if (value >= 100) return fmt::format("{:.0f}", value);
  if (value >= 10) return fmt::format("{:.1f}", value);
  return fmt::format("{:.3f}", value);
}

}  // namespace text

std::string RenderDirections(const std::vector<analysis::DirectionRow>& rows,
                             const std::vector<record::Finding>& pair_findings) {
  std::string out =
      "\nBoth directions side by side (forward: client sends; reverse: server sends)\n";
  out += fmt::format("  {:<34} {:<14} {:>16} {:>16}\n", "figure", "unit", "forward", "reverse");
  std::vector<std::string> reasons;
  for (const analysis::DirectionRow& row : rows) {
    // A part of the transfer's CPU is indented under it, as the summary's cost lines are.
    const std::string figure = row.part ? "  " + row.figure : row.figure;
    out += fmt::format("  {:<34} {:<14} {:>16} {:>16}\n", figure, UnitText(row),
                       CellText(row, row.forward, reasons), CellText(row, row.reverse, reasons));
  }
  for (size_t i = 0; i < reasons.size(); ++i) {
    out += fmt::format("  [{}] {}\n", i + 1, reasons[i]);
  }
  out += "\nThe two directions compared: ";
  out += pair_findings.empty() ? "no finding (asymmetry, interrupt cost).\n"
                               : "\n" + text::FindingLines(pair_findings);
  return TerminalSafeLines(out);
}

}  // namespace nicbench::report
