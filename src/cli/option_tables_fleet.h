// The option tables of the fleet's commands (cli/option_rows.h says what a row holds):
// `nicbench agent`, `nicbench mesh create|list|pause|resume|delete|grid`, and where the fleet's
// database is (--store, --store-file), which `store migrate` shares; with the argument structs
// their rows bind to and the values their setters fill. The tables are in
// option_tables_fleet.cc, each in the order --help lists its options. What concerns several
// options at once (--lease longer than --heartbeat, --hosts or --from, a period longer than the
// test, the database URL from a file, --store or the environment) stays in the commands'
// validation passes. Internal to the cli layer; the tables are constant.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/fleet_options.h"
#include "cli/mesh_definition.h"
#include "cli/mesh_grid.h"
#include "cli/metrics_listener.h"
#include "cli/option_rows.h"
#include "job/agent.h"
#include "report/fleet_report.h"
#include "store/fleet.h"

namespace nicbench::cli {

// `nicbench agent`, as typed.
struct AgentArgs {
  std::string name, poll = "1s", heartbeat = "5s", lease = "30s", offline_after = "60s",
                    metrics_listen;
  std::vector<std::string> addresses;
  FleetArgs fleet;
};
// What its rows fill: the agent's spec (the name and addresses as given: agent_command.cc
// fills the defaults) and where its metrics are served, when asked.
struct AgentPlan {
  job::AgentSpec spec;
  std::optional<ListenAddress> metrics;
};

// `nicbench mesh VERB`, as typed: create's definition, grid's options, list's --json.
struct MeshCommandArgs {
  MeshArgs mesh;
  GridArgs grid;
  bool json = false;
  FleetArgs fleet;
};

std::span<const OptionRow<FleetArgs>> FleetStoreRows();
std::span<const OptionRow<AgentArgs, AgentPlan>> AgentRows();
// create's name, --hosts, --every and --test fill the mesh (its pairs are create's to make).
std::span<const OptionRow<MeshArgs, store::MeshSpec>> MeshCreateRows();
std::span<const OptionRow<MeshCommandArgs>> MeshListRows();
// The NAME of pause, resume, delete and grid.
std::span<const OptionRow<MeshArgs>> MeshNameRows();
std::span<const OptionRow<GridArgs, report::GridThresholds>> MeshGridRows();

// Every row of one of these commands' App, in the order it declares them: "agent", "mesh"
// (its own --store rows), "mesh create", "mesh list", "mesh pause", "mesh resume",
// "mesh delete", "mesh grid", "store migrate"; false when `command` is not one of them.
bool AppendFleetRows(std::string_view command, std::vector<RowView>& out);

}  // namespace nicbench::cli
