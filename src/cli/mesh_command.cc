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
#include "cli/option_tables_fleet.h"
#include "cli/parse_args.h"
#include "job/agent.h"
#include "report/fleet_report.h"
#include "report/html_report.h"
#include "store/fleet.h"
#include "store/store.h"

namespace nicbench::cli {
namespace {

using Args = MeshCommandArgs;

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

// The mesh `create` defines: from its rows (`applied`), or from --from's file.
Result<store::MeshSpec> Definition(const Args& a, store::MeshSpec applied) {
  if (a.mesh.from.empty()) {
    if (a.mesh.hosts.empty()) return Fail("create " + a.mesh.name + ": --hosts or --from");
    return MeshFromArgs(a.mesh, std::move(applied));
  }
  if (!a.mesh.hosts.empty()) return Fail("--from FILE and --hosts: one or the other");
  std::ifstream in(a.mesh.from);
  if (!in) return Fail("--from " + a.mesh.from + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  auto doc = nlohmann::json::parse(text.str(), nullptr, false);
  if (doc.is_discarded()) return Fail("--from " + a.mesh.from + ": not JSON");
  return MeshFromJson(a.mesh.name, doc, a.mesh.from);
}

int Create(store::Fleet& fleet, const store::MeshSpec& spec);

int Create(const Args& a, store::MeshSpec applied) {
  auto spec = Definition(a, std::move(applied));
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
  AddRows(*app.add_subcommand("create", "create a mesh: every pair of --hosts, or --from"), a.mesh,
          MeshCreateRows());
  AddRows(*app.add_subcommand("list", "the meshes"), a, MeshListRows());
  for (const char* verb : {"pause", "resume", "delete"}) {
    AddRows(*app.add_subcommand(verb, std::string(verb) + " a mesh"), a.mesh, MeshNameRows());
  }
  auto* grid = app.add_subcommand("grid", "each pair's latest result: rows send, columns receive");
  AddRows(*grid, a.mesh, MeshNameRows());
  AddRows(*grid, a.grid, MeshGridRows());
  AddRows(app, a.fleet, FleetStoreRows());
  for (CLI::App* sub : app.get_subcommands({})) AddRows(*sub, a.fleet, FleetStoreRows());
}

// The validation pass: the rows of `verb` that set values (create's mesh, grid's thresholds),
// each checked against its range, then where the fleet's database is; before it is opened.
struct Applied {
  store::MeshSpec mesh;
  report::GridThresholds grid;
};
Result<Applied> Validate(const Args& a, const std::string& verb) {
  Applied applied;
  if (verb == "create") {
    if (auto s = ApplyRows(a.mesh, MeshCreateRows(), applied.mesh); !s) {
      return tl::unexpected(s.error());
    }
  } else if (verb == "grid") {
    if (auto s = ApplyRows(a.grid, MeshGridRows(), applied.grid); !s) {
      return tl::unexpected(s.error());
    }
  }
  if (auto url = FleetUrl(a.fleet); !url) return tl::unexpected(url.error());
  return applied;
}

int Grid(store::Fleet& fleet, const Args& a, const report::GridThresholds& thresholds) {
  auto mesh = fleet.FindMesh(a.mesh.name);
  if (!mesh) return Error(ExitCode::kStore, mesh.error().message);
  if (!*mesh) return Error(ExitCode::kNotFound, "no mesh named '" + a.mesh.name + "'");
  return RunMeshGrid(fleet, **mesh, a.grid, thresholds, *FleetUrl(a.fleet));
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
  auto applied = Validate(args, verb);
  if (!applied) return Error(ExitCode::kUsage, applied.error().message);
  if (verb == "create") return Create(args, std::move(applied->mesh));
  return WithFleet(args, [&](store::Fleet& fleet) {
    if (verb == "list") return List(fleet, args);
    if (verb == "grid") return Grid(fleet, args, applied->grid);
    return SetState(fleet, args, verb);
  });
}

}  // namespace nicbench::cli
