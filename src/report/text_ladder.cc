// The drop ladder table of the summary: one row per layer of the receive path, bottom up, one
// column per end, from analysis/drop_ladder.h (the same figures the drop-ladder finding judges).
#include <algorithm>

#include <fmt/format.h>

#include "analysis/cost.h"
#include "analysis/drop_ladder.h"
#include "record/json.h"
#include "report/text_lines.h"

namespace nicbench::report::text {
namespace {

std::string EndTitle(const record::RunRecord& run, const record::EndpointRecord& end) {
  return fmt::format("{} {}", &end == &run.local ? "local" : "remote", record::RoleName(end.role));
}

}  // namespace

std::string DropLadderTable(const record::RunRecord& run) {
  std::vector<const record::EndpointRecord*> ends = {&run.local};
  if (run.remote.known()) ends.push_back(&run.remote.value());
  std::vector<std::string> titles;
  std::vector<std::vector<analysis::Rung>> ladders;
  for (const auto* end : ends) {
    titles.push_back(EndTitle(run, *end));
    ladders.push_back(analysis::DropLadderOf(run, *end));
  }
  // Every column but the last is padded to its widest cell, so the rows line up.
  std::vector<size_t> widths;
  for (size_t e = 0; e < ends.size(); ++e) {
    size_t w = titles[e].size();
    for (const auto& rung : ladders[e]) w = std::max(w, analysis::RungText(rung).size());
    widths.push_back(w);
  }
  auto row = [&](const std::string& first, const std::vector<std::string>& cells) {
    std::string line = fmt::format("  {:<17}", first);
    for (size_t e = 0; e < cells.size(); ++e) {
      line += e + 1 < cells.size() ? fmt::format("{:<{}}  ", cells[e], widths[e]) : cells[e];
    }
    return line + "\n";
  };
  std::string out = "Drop ladder, bottom up (packets dropped during the test):\n";
  out += row("layer", titles);
  for (size_t r = 0; r < ladders[0].size(); ++r) {
    std::vector<std::string> cells;
    for (const auto& ladder : ladders) cells.push_back(analysis::RungText(ladder[r]));
    out += row(ladders[0][r].name, cells);
  }
  if (!run.remote.known()) out += "  (the remote end did not report: its ladder is unknown)\n";
  if (analysis::SharedHost(run)) {
    out +=
        "  (both ends on one host: the softnet and socket counters are the host's, seen twice)\n";
  }
  return out;
}

}  // namespace nicbench::report::text
