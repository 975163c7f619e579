// `nicbench store migrate` (docs/store.md, docs/fleet.md): creates the store's schema, or
// upgrades it to this nicbench's version, and says which version it holds. Every command that
// writes migrates on its own; this is for a deployment that migrates once, before its agents
// start (deploy/kubernetes/migrate-job.yaml).
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "base/log.h"
#include "cli/commands.h"
#include "cli/fleet_options.h"
#include "cli/option_tables_fleet.h"
#include "cli/parse_args.h"
#include "store/store.h"

namespace nicbench::cli {
namespace {

// The store's location: as the fleet reads it (a file, or --store without a password), else
// the default location (NICBENCH_STORE, ...), which may be a SQLite file.
Result<std::string> MigrateLocation(const FleetArgs& a) {
  if (!a.store_file.empty() || !a.store.empty()) {
    if (!a.store_file.empty() || store::IsPostgresUrl(a.store)) return FleetUrl(a);
    return a.store;
  }
  return store::DefaultLocation();
}

}  // namespace

int RunStoreCommand(int argc, char** argv) {
  CLI::App app{"nicbench store: the result store's schema (docs/store.md)", "store"};
  FleetArgs args;
  app.require_subcommand(1);
  auto* migrate = app.add_subcommand("migrate", "create the schema or upgrade it to this version");
  AddRows(*migrate, args, FleetStoreRows());
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  auto location = MigrateLocation(args);
  if (!location) {
    LogError("nicbench store migrate: " + location.error().message);
    return ToInt(ExitCode::kUsage);
  }
  auto opened = store::OpenStore(*location, store::OpenMode::kCreate);
  if (!opened) {
    LogError("nicbench store migrate: " + opened.error().message);
    return ToInt(ExitCode::kStore);
  }
  std::printf("%s: schema version %d\n", (*opened)->Describe().c_str(), store::kSchemaVersion);
  return ToInt(ExitCode::kOk);
}

}  // namespace nicbench::cli
