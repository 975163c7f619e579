// `nicbench mesh grid` and `nicbench agent` (docs/fleet.md): a mesh's latest result of each
// ordered pair judged and laid out as a grid (rows: sender, columns: receiver) in text, JSON
// and HTML; and an agent's metrics in the Prometheus text format. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/fleet.h"
#include "store/fleet.h"

namespace nicbench::report {

struct GridThresholds {
  std::optional<double> warn_bits_per_second;  // below: warn
  std::optional<double> crit_bits_per_second;  // below: crit
  // Below this share of the median of the pair's own earlier results (at least 3): warn.
  // 0 = not judged against the history.
  double relative_percent = 0;
  // One direction at least this many times the other: both cells are marked asymmetric.
  double asymmetry_ratio = 2;
  // A result older than this is stale (0: twice the mesh's period).
  double stale_after_secs = 0;
};

enum class CellState { kOk, kWarn, kCrit, kStale, kFailed, kPending, kNone };
// "ok", "warn", "crit", "stale", "failed", "pending", "none".
const char* CellStateName(CellState state);

struct GridCell {
  std::string sender, receiver;
  CellState state = CellState::kNone;
  std::optional<double> bits_per_second;  // the latest successful result
  bool asymmetric = false;                // against the reverse pair
  std::optional<int64_t> run_id;          // of that result
  std::string top_finding, top_severity;  // of that run
  std::string note;                       // why failed, skipped or stale; the judgement
  double age_secs = 0;                    // of the result
};

struct Grid {
  std::string mesh;
  std::vector<std::string> hosts;  // rows and columns, in the mesh's order
  std::vector<GridCell> cells;     // one per ordered pair of the mesh
};

Grid BuildGrid(const store::Mesh& mesh, const std::vector<store::PairResult>& pairs,
               const GridThresholds& thresholds, double now);

// The cell of sender -> receiver, or null (the pair is not in the mesh).
const GridCell* CellOf(const Grid& grid, const std::string& sender, const std::string& receiver);

// Rows of senders under a header of receivers; each cell the goodput and its state, '*' on an
// asymmetric pair; then one line per cell that is not ok.
std::string RenderGridText(const Grid& grid);
// {"mesh", "hosts": [...], "cells": [{"sender", "receiver", "state", "bits_per_second" (or
// null), "asymmetric", "run_id" (or null), "top_finding", "top_severity", "note",
// "age_seconds"}]}
nlohmann::ordered_json GridJson(const Grid& grid);
// A self-contained page; each cell with a result links to `link_prefix` + ID + ".html" (the
// run's report) and carries the run's top finding.
std::string RenderGridHtml(const Grid& grid, const std::string& link_prefix);

// The agent's metric families (docs/fleet.md, "Metrics").
std::string RenderAgentPrometheus(const record::AgentMetrics& metrics);

}  // namespace nicbench::report
