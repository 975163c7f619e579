// `nicbench agent` (docs/fleet.md): the long-running job on each host of a fleet. It registers
// the host with a heartbeat, does the fleet's housekeeping (a mesh's next period, expired
// leases), claims the jobs this host sends, runs each as an ordinary test against the job's
// receiver (whose `nicbench serve` is the far end) while renewing the lease, and stores the
// run with the job marked done in one transaction, or marks it failed with the reason. A lost
// database is retried with backoff; a test under way goes on meanwhile. Stopped mid-test, it
// hands the job back to the queue (store::Fleet::Release) rather than failing it.
//
// How a test runs is the caller's (cli wires `run`'s own parser and engine path): the seam is
// AgentTests, so this layer never sees argv, and a fake runs tests in a unit test.
//
// Thread safety: Agent::Run blocks its thread (tests run on a second thread it owns);
// Metrics() may be called from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/client.h"
#include "record/fleet.h"
#include "store/fleet.h"

namespace nicbench::job {

struct AgentTests {
  // Checks a job's test options exactly as `run` checks its command line (record::Validate
  // among the checks) and builds the test against `peer`. An error is the reason the job is
  // marked failed, never run: a row written by someone else runs only a test within limits.
  std::function<Result<engine::ClientConfig>(const std::string& peer,
                                             const std::vector<std::string>& options)>
      prepare;
  // Runs one prepared test and returns its whole record, diagnosed; an error is why it failed.
  // config.stop_fd is the agent's stop.
  std::function<Result<record::RunRecord>(const engine::ClientConfig& config)> run;
};

struct AgentSpec {
  std::string url;                            // the fleet's PostgreSQL database
  store::FleetHost self;                      // name, addresses, version, facts
  std::chrono::milliseconds poll{1000};       // between claims while idle
  std::chrono::milliseconds heartbeat{5000};  // heartbeat and lease renewal
  std::chrono::milliseconds max_backoff{30000};
  store::LeaseTerms terms;
  // Called after every change of the metrics (on the agent's thread).
  std::function<void(const record::AgentMetrics&)> metrics;
};

class Agent {
 public:
  Agent(AgentSpec spec, AgentTests tests);
  // Runs until `stop_fd` is readable. Fails only when the database cannot be opened at the
  // first attempt (a wrong URL, a newer schema): later failures are retried.
  Status Run(int stop_fd);
  record::AgentMetrics Metrics() const;

 private:
  bool Connect();    // false: not now (backoff under way)
  void Housekeep();  // heartbeat due, periods, expired leases
  void RunJob(const store::FleetJob& job);
  Result<record::RunRecord> RunWithRenewals(const store::FleetJob& job,
                                            engine::ClientConfig config);
  void Finish(const store::FleetJob& job, const Result<record::RunRecord>& result);
  void Release(const store::FleetJob& job);  // stopping: the job back to the queue
  void Lost(const Error& error);             // the connection is dropped and retried
  bool Wait(std::chrono::milliseconds d);    // false: stopped
  void Changed(const std::function<void(record::AgentMetrics&)>& change);

  AgentSpec spec_;
  AgentTests tests_;
  int stop_fd_ = -1;
  std::unique_ptr<store::Fleet> fleet_;
  std::chrono::milliseconds backoff_{0};
  std::chrono::steady_clock::time_point next_heartbeat_{};
  mutable std::mutex mutex_;
  record::AgentMetrics metrics_;
};

// Unix time now, in seconds.
double WallSeconds();

}  // namespace nicbench::job
