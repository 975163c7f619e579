// `nicbench mesh grid NAME` (docs/fleet.md, "The grid"): the options as typed (their rows:
// cli/option_tables_fleet.h) and the command's body.
// Internal to the cli layer.
#pragma once

#include <string>

#include "report/fleet_report.h"
#include "store/fleet.h"

namespace nicbench::cli {

struct GridArgs {
  std::string html, warn, crit, relative = "0", asymmetry = "2", stale_after;
  bool json = false;
};

// Prints the grid (text, or JSON with --json) judged by `thresholds` (the rows' values) and
// writes --html; the exit code. `url` is the fleet's database, where the runs' reports are read
// from.
int RunMeshGrid(store::Fleet& fleet, const store::Mesh& mesh, const GridArgs& args,
                const report::GridThresholds& thresholds, const std::string& url);

}  // namespace nicbench::cli
