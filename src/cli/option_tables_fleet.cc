#include "cli/option_tables_fleet.h"

#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace nicbench::cli {
namespace {

using job::AgentSpec;
using report::GridThresholds;
using store::MeshSpec;

// The agent's times: 10 ms .. 24 h.
constexpr int64_t kAgentMinMs = 10, kAgentMaxMs = int64_t{24} * 3600 * 1000;
constexpr auto kSpec = &AgentPlan::spec;

Status AddAddress(std::string_view, const std::string& text, AgentPlan& plan) {
  plan.spec.self.addresses.push_back(text);
  return Ok();
}

// --metrics-listen ADDR:PORT (its message names the option).
Status SetListen(std::string_view, const std::string& text, AgentPlan& plan) {
  auto where = ParseListenAddress(text);
  if (!where) return tl::unexpected(where.error());
  plan.metrics = *where;
  return Ok();
}

Status SetMeshHosts(std::string_view name, const std::string& text, MeshSpec& spec) {
  std::vector<std::string> hosts = SplitHosts(text);
  if (auto s = CheckMeshHosts(fmt::format("{}: ", name), hosts); !s) return s;
  spec.hosts = std::move(hosts);
  return Ok();
}

Status SetMeshTest(std::string_view name, const std::string& text, MeshSpec& spec) {
  std::vector<std::string> words = SplitWords(text);
  if (auto checked = CheckMeshTest(name, words); !checked) return tl::unexpected(checked.error());
  spec.test = std::move(words);
  return Ok();
}

// --asymmetry: a ratio above 1 (one direction this many times the other), at most 1000.
Status SetAsymmetry(std::string_view name, const std::string& text, GridThresholds& t) {
  auto ratio = ParseNumberIn(name, text, 1, 1000);
  if (!ratio || *ratio <= 1) return Fail(fmt::format("{} {}: expected a ratio > 1", name, text));
  t.asymmetry_ratio = *ratio;
  return Ok();
}

const OptionRow<FleetArgs> kFleetStoreRows[] = {
    {"--store",
     "the fleet's database, postgresql://USER@HOST/DB (no password here: use\n"
     "--store-file, $NICBENCH_STORE or ~/.pgpass)",
     &FleetArgs::store, nullptr, "postgresql://nicbench:secret@127.0.0.1:1/fleet"},
    {"--store-file", "read the database URL (password included) from the first line of FILE",
     &FleetArgs::store_file, nullptr, "/nonexistent/nicbench-rows/fleet-url"},
};

// Empty durations are refused (kParseEmpty), as they always were, not taken for the default.
const OptionRow<AgentArgs, AgentPlan> kAgentRows[] = {
    {"--name", "this host's name in the fleet (default: its hostname)", &AgentArgs::name,
     SetText<kSpec, &AgentSpec::self, &store::FleetHost::name>},
    {"--address", "where this host's `nicbench serve` answers (repeatable; default: --name)",
     &AgentArgs::addresses, AddAddress},
    {"--poll", "time between claims while idle (default 1s)", &AgentArgs::poll,
     SetDuration<kAgentMinMs, kAgentMaxMs, kSpec, &AgentSpec::poll>, "5ms", nullptr, kParseEmpty},
    {"--heartbeat", "time between heartbeats and lease renewals (default 5s)",
     &AgentArgs::heartbeat, SetDuration<kAgentMinMs, kAgentMaxMs, kSpec, &AgentSpec::heartbeat>,
     "25h", nullptr, kParseEmpty},
    {"--lease",
     "a claim lasts this long unless renewed; a dead agent's job runs again after\n"
     "it (default 30s, more than --heartbeat)",
     &AgentArgs::lease,
     SetDuration<kAgentMinMs, kAgentMaxMs, kSpec, &AgentSpec::terms, &store::LeaseTerms::lease>,
     "soon", nullptr, kParseEmpty},
    {"--offline-after", "a host without a heartbeat this long is offline (default 60s)",
     &AgentArgs::offline_after,
     SetDuration<kAgentMinMs, kAgentMaxMs, kSpec, &AgentSpec::terms,
                 &store::LeaseTerms::offline_after>,
     "0s", nullptr, kParseEmpty},
    {"--metrics-listen", "serve Prometheus metrics at http://ADDR:PORT/metrics",
     &AgentArgs::metrics_listen, SetListen, "127.0.0.1:99999"},
};

const OptionRow<MeshArgs, MeshSpec> kMeshCreateRows[] = {
    {"name", "the mesh's name", &MeshArgs::name, SetText<&MeshSpec::name>, nullptr, nullptr,
     kRequired},
    {"--hosts", "the hosts (agents' --name), comma separated", &MeshArgs::hosts, SetMeshHosts,
     "a,a"},
    {"--every", "the period: each pair tested once per (1h)", &MeshArgs::every,
     SetDuration<kMinMeshEveryMs, kMaxMeshEveryMs, &MeshSpec::every_secs>, "0.5s", nullptr,
     kParseEmpty},
    {"--test", "run's options for each test (default '-t 10')", &MeshArgs::test, SetMeshTest,
     "-t 1 -R"},
    {"--both-directions", "test each pair both ways (default: the first named sends)",
     &MeshArgs::both_directions},
    {"--from", "the definition in a JSON file (docs/fleet.md)", &MeshArgs::from},
};

const OptionRow<MeshCommandArgs> kMeshListRows[] = {
    {"--json", "as JSON", &MeshCommandArgs::json},
};

const OptionRow<MeshArgs> kMeshNameRows[] = {
    {"name", "the mesh's name", &MeshArgs::name, nullptr, nullptr, nullptr, kRequired},
};

constexpr Range kRate{0, UINT64_MAX, Reading::kBitRate};

const OptionRow<GridArgs, GridThresholds> kMeshGridRows[] = {
    {"--json", "as JSON", &GridArgs::json},
    {"--html", "also write the grid as HTML to FILE, and each run's report beside it",
     &GridArgs::html},
    {"--warn", "a goodput below this is warn (100M, 1G)", &GridArgs::warn,
     SetNumber<kRate, &GridThresholds::warn_bits_per_second>, "fast"},
    {"--crit", "a goodput below this is crit", &GridArgs::crit,
     SetNumber<kRate, &GridThresholds::crit_bits_per_second>, "slow"},
    {"--relative", "warn PERCENT below the median of the pair's own history (0 = off)",
     &GridArgs::relative, SetDecimal<0, 99, &GridThresholds::relative_percent>, "100", nullptr,
     kParseEmpty},
    {"--asymmetry", "one direction this many times the other is asymmetric (default 2)",
     &GridArgs::asymmetry, SetAsymmetry, "1", nullptr, kParseEmpty},
    {"--stale-after", "a result older than this is stale (default: two periods)",
     &GridArgs::stale_after, SetDuration<1, kMaxMeshEveryMs, &GridThresholds::stale_after_secs>,
     "0s"},
};

}  // namespace

std::span<const OptionRow<FleetArgs>> FleetStoreRows() { return kFleetStoreRows; }
std::span<const OptionRow<AgentArgs, AgentPlan>> AgentRows() { return kAgentRows; }
std::span<const OptionRow<MeshArgs, MeshSpec>> MeshCreateRows() { return kMeshCreateRows; }
std::span<const OptionRow<MeshCommandArgs>> MeshListRows() { return kMeshListRows; }
std::span<const OptionRow<MeshArgs>> MeshNameRows() { return kMeshNameRows; }
std::span<const OptionRow<GridArgs, GridThresholds>> MeshGridRows() { return kMeshGridRows; }

bool AppendFleetRows(std::string_view command, std::vector<RowView>& out) {
  if (command == "agent") {
    AppendViews(out, AgentRows());
  } else if (command == "mesh create") {
    AppendViews(out, MeshCreateRows());
  } else if (command == "mesh list") {
    AppendViews(out, MeshListRows());
  } else if (command == "mesh pause" || command == "mesh resume" || command == "mesh delete") {
    AppendViews(out, MeshNameRows());
  } else if (command == "mesh grid") {
    AppendViews(out, MeshNameRows());
    AppendViews(out, MeshGridRows());
  } else if (command != "mesh" && command != "store migrate") {
    return false;
  }
  AppendViews(out, FleetStoreRows());
  return true;
}

}  // namespace nicbench::cli
