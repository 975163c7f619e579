// `nicbench mesh create|list|pause|resume|delete|grid` (docs/fleet.md): meshes written to and
// read from the fleet's database; the queue itself is the agents' (job/agent.h).
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "base/log.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/fleet_options.h"
#include "cli/mesh_definition.h"
#include "cli/mesh_grid.h"
#include "cli/parse_args.h"
#include "job/agent.h"
#include "report/fleet_report.h"
#include "report/html_report.h"
#include "store/fleet.h"
#include "store/store.h"

namespace nicbench::cli {
namespace {

struct Args {
  MeshArgs mesh;
  GridArgs grid;
  bool json = false;
  FleetArgs fleet;
};

// A period as it is written: "1h", "10m", "90s".
std::string EveryText(double secs) {
  const auto whole = static_cast<int64_t>(std::llround(secs));
  if (whole % 3600 == 0) return fmt::format("{}h", whole / 3600);
  if (whole % 60 == 0) return fmt::format("{}m", whole / 60);
  return fmt::format("{}s", whole);
}

int Error(ExitCode code, const std::string& message) {
  LogError("nicbench mesh: " + message);
  return ToInt(code);
}

// Runs `body` on the fleet's database: a URL that is wrong in itself (a password on the command
// line, none, not PostgreSQL) is a usage error, one that does not open a store error.
int WithFleet(const Args& a, const std::function<int(store::Fleet&)>& body) {
  auto url = FleetUrl(a.fleet);
  if (!url) return Error(ExitCode::kUsage, url.error().message);
  auto fleet = store::Fleet::Open(*url);
  if (!fleet) return Error(ExitCode::kStore, fleet.error().message);
  return body(**fleet);
}

Result<store::MeshSpec> Definition(const Args& a) {
  if (a.mesh.from.empty()) {
    if (a.mesh.hosts.empty()) return Fail("create " + a.mesh.name + ": --hosts or --from");
    return MeshFromArgs(a.mesh);
  }
  if (!a.mesh.hosts.empty()) return Fail("--from FILE and --hosts: one or the other");
  std::ifstream in(a.mesh.from);
  if (!in) return Fail(a.mesh.from + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  auto doc = nlohmann::json::parse(text.str(), nullptr, false);
  if (doc.is_discarded()) return Fail(a.mesh.from + ": not JSON");
  return MeshFromJson(a.mesh.name, doc, a.mesh.from);
}

int Create(store::Fleet& fleet, const store::MeshSpec& spec);

int Create(const Args& a) {
  auto spec = Definition(a);
  if (!spec) return Error(ExitCode::kUsage, spec.error().message);
  return WithFleet(a, [&spec](store::Fleet& fleet) { return Create(fleet, *spec); });
}

int Create(store::Fleet& fleet, const store::MeshSpec& spec) {
  auto hosts = fleet.Hosts();
  if (!hosts) return Error(ExitCode::kStore, hosts.error().message);
  for (const std::string& h : spec.hosts) {
    if (std::none_of(hosts->begin(), hosts->end(),
                     [&h](const store::FleetHost& known) { return known.name == h; })) {
      return Error(ExitCode::kUsage,
                   fmt::format("unknown host '{}': no agent has registered under that name "
                               "(nicbench agent --name {} on that host)",
                               h, h));
    }
  }
  auto taken = fleet.FindMesh(spec.name);
  if (!taken) return Error(ExitCode::kStore, taken.error().message);
  if (*taken) return Error(ExitCode::kUsage, "a mesh named '" + spec.name + "' exists already");
  auto id = fleet.CreateMesh(spec, job::WallSeconds());
  if (!id) return Error(ExitCode::kStore, id.error().message);
  std::fprintf(stderr, "nicbench mesh: created %s: %zu pairs every %s\n", spec.name.c_str(),
               spec.pairs.size(), EveryText(spec.every_secs).c_str());
  return ToInt(ExitCode::kOk);
}

std::string UtcText(double secs) {
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

int List(store::Fleet& fleet, const Args& a) {
  auto meshes = fleet.Meshes();
  if (!meshes) return Error(ExitCode::kStore, meshes.error().message);
  if (a.json) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::array();
    for (const store::Mesh& m : *meshes) {
      doc.push_back({{"name", m.spec.name},
                     {"state", m.state},
                     {"hosts", m.spec.hosts},
                     {"pairs", m.spec.pairs.size()},
                     {"every_seconds", m.spec.every_secs},
                     {"test", fmt::format("{}", fmt::join(m.spec.test, " "))},
                     {"next_period", UtcText(m.next_secs)}});
    }
    std::printf("%s\n", nlohmann::ordered_json{{"meshes", doc}}.dump().c_str());
    return ToInt(ExitCode::kOk);
  }
  std::printf("%-16s %-7s %5s %8s  %-20s %s\n", "NAME", "STATE", "PAIRS", "EVERY", "NEXT", "HOSTS");
  for (const store::Mesh& m : *meshes) {
    std::printf("%-16s %-7s %5zu %8s  %-20s %s\n", m.spec.name.c_str(), m.state.c_str(),
                m.spec.pairs.size(), EveryText(m.spec.every_secs).c_str(),
                UtcText(m.next_secs).c_str(),
                fmt::format("{}", fmt::join(m.spec.hosts, ",")).c_str());
  }
  return ToInt(ExitCode::kOk);
}

int SetState(store::Fleet& fleet, const Args& a, const std::string& verb) {
  auto mesh = fleet.FindMesh(a.mesh.name);
  if (!mesh) return Error(ExitCode::kStore, mesh.error().message);
  if (!*mesh) return Error(ExitCode::kNotFound, "no mesh named '" + a.mesh.name + "'");
  Status s = verb == "delete"
                 ? fleet.DeleteMesh(a.mesh.name)
                 : fleet.SetMeshState(a.mesh.name, verb == "pause" ? "paused" : "active",
                                      job::WallSeconds());
  if (!s) return Error(ExitCode::kStore, s.error().message);
  return ToInt(ExitCode::kOk);
}

void AddCommands(CLI::App& app, Args& a) {
  app.require_subcommand(1);
  auto* create = app.add_subcommand("create", "create a mesh: every pair of --hosts, or --from");
  create->add_option("name", a.mesh.name, "the mesh's name")->required();
  create->add_option("--hosts", a.mesh.hosts, "the hosts (agents' --name), comma separated");
  create->add_option("--every", a.mesh.every, "the period: each pair tested once per (1h)");
  create->add_option("--test", a.mesh.test, "run's options for each test (default '-t 10')");
  create->add_flag("--both-directions", a.mesh.both_directions,
                   "test each pair both ways (default: the first named sends)");
  create->add_option("--from", a.mesh.from, "the definition in a JSON file (docs/fleet.md)");
  app.add_subcommand("list", "the meshes")->add_flag("--json", a.json, "as JSON");
  for (const char* verb : {"pause", "resume", "delete"}) {
    app.add_subcommand(verb, std::string(verb) + " a mesh")
        ->add_option("name", a.mesh.name, "the mesh's name")
        ->required();
  }
  auto* grid = app.add_subcommand("grid", "each pair's latest result: rows send, columns receive");
  grid->add_option("name", a.mesh.name, "the mesh's name")->required();
  grid->add_flag("--json", a.grid.json, "as JSON");
  grid->add_option("--html", a.grid.html,
                   "also write the grid as HTML to FILE, and each run's "
                   "report beside it");
  grid->add_option("--warn", a.grid.warn, "a goodput below this is warn (100M, 1G)");
  grid->add_option("--crit", a.grid.crit, "a goodput below this is crit");
  grid->add_option("--relative", a.grid.relative,
                   "warn PERCENT below the median of the pair's own history (0 = off)");
  grid->add_option("--asymmetry", a.grid.asymmetry,
                   "one direction this many times the other is asymmetric (default 2)");
  grid->add_option("--stale-after", a.grid.stale_after,
                   "a result older than this is stale (default: two periods)");
  AddFleetStoreOptions(app, a.fleet);
  for (CLI::App* sub : app.get_subcommands({})) AddFleetStoreOptions(*sub, a.fleet);
}

int Grid(store::Fleet& fleet, const Args& a) {
  auto mesh = fleet.FindMesh(a.mesh.name);
  if (!mesh) return Error(ExitCode::kStore, mesh.error().message);
  if (!*mesh) return Error(ExitCode::kNotFound, "no mesh named '" + a.mesh.name + "'");
  return RunMeshGrid(fleet, **mesh, a.grid, *FleetUrl(a.fleet));
}

}  // namespace

int RunMeshCommand(int argc, char** argv) {
  CLI::App app{"nicbench mesh: tests between every pair of a fleet's hosts (docs/fleet.md)",
               "mesh"};
  Args args;
  AddCommands(app, args);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  const std::string verb = app.get_subcommands().front()->get_name();
  if (verb == "create") return Create(args);
  return WithFleet(args, [&](store::Fleet& fleet) {
    if (verb == "list") return List(fleet, args);
    if (verb == "grid") return Grid(fleet, args);
    return SetState(fleet, args, verb);
  });
}

}  // namespace nicbench::cli
