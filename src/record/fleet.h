// `nicbench agent` (docs/fleet.md): the running totals an agent hands out, which
// report/fleet_report.h renders in the Prometheus text format. Plain values; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nicbench::record {

// The last finished test of one ordered pair this agent ran.
struct PairGoodput {
  std::string sender, receiver;
  std::optional<double> bits_per_second;  // unknown when the run did not report it
  double at_unix = 0;                     // when it finished
  bool failed = false;                    // the job failed: bits_per_second is unknown
};

struct AgentMetrics {
  std::string agent;  // the agent's --name
  uint64_t claims = 0;
  uint64_t jobs_done = 0;       // run and stored
  uint64_t jobs_failed = 0;     // the test failed, or its options were refused
  uint64_t jobs_refused = 0;    // of those, options that failed Validate() (never run)
  uint64_t jobs_released = 0;   // handed back unfinished because the agent was stopping
  uint64_t lease_expiries = 0;  // jobs whose lease this agent found expired (any agent's)
  uint64_t leases_lost = 0;     // this agent's own runs discarded: their lease had expired
  uint64_t reconnects = 0;      // connections to the database opened after a failure
  bool database_up = false;
  std::vector<PairGoodput> last;  // by (sender, receiver)
};

}  // namespace nicbench::record
