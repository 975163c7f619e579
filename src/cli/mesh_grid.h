// `nicbench mesh grid NAME` (docs/fleet.md, "The grid"): the options and the command's body.
// Internal to the cli layer.
#pragma once

#include <string>

#include "store/fleet.h"

namespace nicbench::cli {

struct GridArgs {
  std::string html, warn, crit, relative = "0", asymmetry = "2", stale_after;
  bool json = false;
};

// Prints the grid (text, or JSON with --json) and writes --html; the exit code. `url` is the
// fleet's database, where the runs' reports are read from.
int RunMeshGrid(store::Fleet& fleet, const store::Mesh& mesh, const GridArgs& args,
                const std::string& url);

}  // namespace nicbench::cli
