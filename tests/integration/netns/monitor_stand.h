// Shared pieces of the monitor's stand tests (docs/monitor.md): `nicbench monitor` in host 1 of
// a stand watching `nicbench serve` in host 2, as real processes, and what it wrote (its events
// file, its stored runs). Used by monitor_stand_test.cc and the long tier's
// long/monitor_soak_stand_test.cc. Not thread-safe: each test uses it from its own thread only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "integration/netns/accuracy_stand.h"
#include "support/run_binary.h"

namespace nicbench::accuracy {

// The whole text of `path` ("" when it cannot be read), for failure messages.
std::string FileText(const std::string& path);

// The event lines of the NDJSON file `path` with this kind and state ("opened", "resolved").
std::vector<nlohmann::json> Events(const std::string& path, const std::string& kind,
                                   const std::string& state);

// Every event line of `path`, whatever its kind.
std::vector<nlohmann::json> AllEvents(const std::string& path);

// Runs the store at `db` holds with the label monitor=`id` (0 when it cannot be opened yet).
size_t StoredRuns(const std::string& db, const std::string& id);

// A monitor in host 1 of `nicbench serve` in host 2 (port 5201), its files in DIR (a fresh
// directory under the temporary directory, named after `id`): --store DIR/runs.db, --events
// DIR/events.ndjson, --lock-dir DIR, --id ID, then `args`. `prioritized`: the monitor runs at
// nice -10 too (Prioritized), as the server always does, for a test that judges its periodic
// tests and probes on a machine shared with builds.
struct StandMonitor {
  std::string dir;
  std::unique_ptr<testing::BackgroundProcess> server, monitor;

  StandMonitor(const stand::ScopedStand& st, const std::string& id,
               const std::vector<std::string>& args, bool prioritized = false);
  ~StandMonitor();
  StandMonitor(const StandMonitor&) = delete;
  StandMonitor& operator=(const StandMonitor&) = delete;

  std::string events() const { return dir + "/events.ndjson"; }
  std::string runs() const { return dir + "/runs.db"; }
};

// `tc qdisc replace ... root handle 1: tbf` on `host`'s egress with these rate, burst and limit.
testing::ProcessResult Tbf(const stand::HostInfo& host, const std::string& rate,
                           const std::string& burst, const std::string& limit);

}  // namespace nicbench::accuracy
