// A mesh's grid: each ordered pair's latest result judged against the thresholds, the pair's
// own history and the reverse pair; rendered as text, JSON and HTML.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/units.h"
#include "report/fleet_report.h"
#include "report/html_report.h"
#include "report/terminal_text.h"

namespace nicbench::report {
namespace {

// Results of the pair's history needed before the relative threshold judges.
constexpr size_t kHistoryNeeded = 3;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The result's judgement: thresholds first, then the pair's own history.
void Judge(GridCell& cell, const store::PairResult& p, const GridThresholds& t) {
  const double bps = *cell.bits_per_second;
  cell.state = CellState::kOk;
  if (t.crit_bits_per_second && bps < *t.crit_bits_per_second) {
    cell.state = CellState::kCrit;
    cell.note = "below --crit " + FormatBitRate(*t.crit_bits_per_second);
  } else if (t.warn_bits_per_second && bps < *t.warn_bits_per_second) {
    cell.state = CellState::kWarn;
    cell.note = "below --warn " + FormatBitRate(*t.warn_bits_per_second);
  } else if (t.relative_percent > 0 && p.history_bits_per_second.size() >= kHistoryNeeded) {
    const double median = Median(p.history_bits_per_second);
    if (bps < median * (1 - t.relative_percent / 100)) {
      cell.state = CellState::kWarn;
      cell.note =
          fmt::format("{:.0f}% below the pair's median of {} runs ({})", 100 * (1 - bps / median),
                      p.history_bits_per_second.size(), FormatBitRate(median));
    }
  }
}

GridCell CellFrom(const store::PairResult& p, const GridThresholds& t, double stale_after,
                  double now) {
  GridCell cell;
  cell.sender = p.sender;
  cell.receiver = p.receiver;
  if (p.last_done) {
    cell.bits_per_second = p.goodput_bits_per_second;
    cell.run_id = p.last_done->run_id;
    cell.top_finding = p.top_finding;
    cell.top_severity = p.top_severity;
    cell.age_secs = now - p.last_done->finished_secs;
  }
  const std::string& state = p.latest.state;
  if (state == store::kJobFailed) {
    cell.state = CellState::kFailed;
    cell.note = p.latest.error;
  } else if (state == store::kJobSkipped) {
    cell.state = CellState::kStale;
    cell.note = p.latest.error;
  } else if (!p.last_done) {
    cell.state = CellState::kPending;
    cell.note = "no result yet (" + state + ")";
  } else if (cell.age_secs > stale_after) {
    cell.state = CellState::kStale;
    cell.note = fmt::format("the latest result is {:.0f} s old", cell.age_secs);
  } else if (!cell.bits_per_second) {
    cell.state = CellState::kFailed;
    cell.note = "the run reported no goodput";
  } else {
    Judge(cell, p, t);
  }
  return cell;
}

void MarkAsymmetric(Grid& grid, double ratio) {
  for (GridCell& cell : grid.cells) {
    const GridCell* back = CellOf(grid, cell.receiver, cell.sender);
    if (back == nullptr || !cell.bits_per_second || !back->bits_per_second) continue;
    const double a = *cell.bits_per_second, b = *back->bits_per_second;
    if (std::min(a, b) <= 0 || std::max(a, b) / std::min(a, b) >= ratio) cell.asymmetric = true;
  }
}

std::string CellText(const GridCell& c) {
  std::string text = c.bits_per_second ? FormatBitRate(*c.bits_per_second) : "-";
  if (c.asymmetric) text += "*";
  if (c.state != CellState::kOk) text += std::string(" ") + CellStateName(c.state);
  return text;
}

}  // namespace

const char* CellStateName(CellState state) {
  switch (state) {
    case CellState::kOk: return "ok";
    case CellState::kWarn: return "warn";
    case CellState::kCrit: return "crit";
    case CellState::kStale: return "stale";
    case CellState::kFailed: return "failed";
    case CellState::kPending: return "pending";
    case CellState::kNone: return "none";
  }
  return "none";
}

Grid BuildGrid(const store::Mesh& mesh, const std::vector<store::PairResult>& pairs,
               const GridThresholds& t, double now) {
  Grid grid;
  grid.mesh = mesh.spec.name;
  grid.hosts = mesh.spec.hosts;
  const double stale_after = t.stale_after_secs > 0 ? t.stale_after_secs : 2 * mesh.spec.every_secs;
  for (const auto& [sender, receiver] : mesh.spec.pairs) {
    // Captured by name: clang 14 cannot capture a structured binding implicitly.
    auto it = std::find_if(pairs.begin(), pairs.end(),
                           [&s = sender, &r = receiver](const store::PairResult& p) {
                             return p.sender == s && p.receiver == r;
                           });
    if (it != pairs.end()) {
      grid.cells.push_back(CellFrom(*it, t, stale_after, now));
    } else {
      GridCell none;
      none.sender = sender;
      none.receiver = receiver;
      none.note = "no job written yet";
      grid.cells.push_back(std::move(none));
    }
  }
  MarkAsymmetric(grid, t.asymmetry_ratio);
  return grid;
}

const GridCell* CellOf(const Grid& grid, const std::string& sender, const std::string& receiver) {
  for (const GridCell& c : grid.cells) {
    if (c.sender == sender && c.receiver == receiver) return &c;
  }
  return nullptr;
}

std::string RenderGridText(const Grid& grid) {
  size_t width = 6;
  for (const std::string& h : grid.hosts) width = std::max(width, h.size());
  for (const GridCell& c : grid.cells) width = std::max(width, CellText(c).size());
  std::string out = fmt::format("mesh {} (rows send, columns receive)\n{:<{}}",
                                TerminalSafe(grid.mesh), "", width + 2);
  for (const std::string& h : grid.hosts) out += fmt::format("{:<{}}", TerminalSafe(h), width + 2);
  out += "\n";
  for (const std::string& from : grid.hosts) {
    out += fmt::format("{:<{}}", TerminalSafe(from), width + 2);
    for (const std::string& to : grid.hosts) {
      const GridCell* c = CellOf(grid, from, to);
      out +=
          fmt::format("{:<{}}", c ? CellText(*c) : std::string(from == to ? "" : "."), width + 2);
    }
    out += "\n";
  }
  for (const GridCell& c : grid.cells) {
    std::string line;
    if (c.asymmetric) line = "asymmetric";
    if (!c.note.empty()) line += (line.empty() ? "" : "; ") + c.note;
    if (!c.top_finding.empty()) {
      line += (line.empty() ? "" : "; ") + c.top_severity + " " + c.top_finding;
    }
    if (!line.empty()) {
      out += TerminalSafe(fmt::format("  {} -> {}: {}", c.sender, c.receiver, line)) + "\n";
    }
  }
  return out;
}

nlohmann::ordered_json GridJson(const Grid& grid) {
  nlohmann::ordered_json cells = nlohmann::ordered_json::array();
  for (const GridCell& c : grid.cells) {
    nlohmann::ordered_json cell;
    cell["sender"] = c.sender;
    cell["receiver"] = c.receiver;
    cell["state"] = CellStateName(c.state);
    cell["bits_per_second"] =
        c.bits_per_second ? nlohmann::ordered_json(*c.bits_per_second) : nlohmann::ordered_json();
    cell["asymmetric"] = c.asymmetric;
    cell["run_id"] = c.run_id ? nlohmann::ordered_json(*c.run_id) : nlohmann::ordered_json();
    cell["top_finding"] = c.top_finding;
    cell["top_severity"] = c.top_severity;
    cell["note"] = c.note;
    cell["age_seconds"] =
        c.run_id ? nlohmann::ordered_json(std::round(c.age_secs)) : nlohmann::ordered_json();
    cells.push_back(std::move(cell));
  }
  nlohmann::ordered_json doc;
  doc["mesh"] = grid.mesh;
  doc["hosts"] = grid.hosts;
  doc["cells"] = std::move(cells);
  return doc;
}

}  // namespace nicbench::report
