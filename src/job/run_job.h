// The run job: what `nicbench run` does once its command line is read, and what any other caller
// (a fleet agent, a monitor) calls to run tests against a peer. One call, RunJob: a RunJobSpec
// in, the records (each with its findings) out; no argv, no output format, nothing printed.
//
//   job::RunJobSpec spec;
//   spec.client.host = "10.0.0.2";               // a `nicbench serve` or an `iperf3 -s`
//   spec.client.spec.duration = std::chrono::seconds(10);  // REQUIRES: record::Validate passed
//   auto result = job::RunJob(spec);             // Result<RunJobResult>
//   if (result && result->runs[0].ok()) Keep(result->runs[0].record);  // findings included
//
// Three shapes: one test against spec.client's server; both directions against it (forward,
// then reverse, then the pair's findings); the loopback job (an in-process server on
// 127.0.0.1, forward and reverse). Each test: run (with latency probes beside it under
// `under_load`), named after the `nicbench stand` it crossed, given a far end's captured facts
// when the peer sent none, diagnosed when it finished. The runs the store keeps are stored
// when `store` is set, after the last test.
//
// Thread safety: RunJob is reentrant (its server, sockets and records are its own); it tells
// its events on the calling thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/directions.h"
#include "base/result.h"
#include "engine/client.h"
#include "job/under_load.h"
#include "probes/far_capture.h"
#include "record/run_record.h"
#include "store/store.h"

namespace nicbench::job {

// Where the kept runs go: the store at `location` (a SQLite file or a postgresql:// URL, created
// when missing), each run in its own transaction with `labels`.
struct StoreTarget {
  std::string location;
  store::Labels labels;
  std::chrono::milliseconds busy_timeout = store::kDefaultBusyTimeout;  // another writer's lock
};

struct RunJobSpec {
  // The test: the server (host, port), the record::TestSpec and the client's settings. With
  // `loopback` the job's own server replaces host and port; with `loopback` or
  // `both_directions` each test's direction is the job's (forward, then reverse).
  engine::ClientConfig client;
  bool loopback = false;                   // an in-process server on 127.0.0.1, both directions
  bool both_directions = false;            // forward then reverse against client's server
  std::optional<ProbeOptions> under_load;  // latency probes beside each test (job/under_load.h)
  // A far end's `nicbench collect` capture: its facts and sample stand in for the record a
  // stock iperf3 peer does not send (a nicbench peer's own record is kept).
  std::optional<probes::FarCapture> remote_facts;
  std::optional<StoreTarget> store;  // nullopt: nothing is stored
};

// The two directions of a job that ran both, side by side, and the findings that need both
// (asymmetry): also merged into the second record's findings.
struct DirectionPair {
  std::vector<analysis::DirectionRow> rows;
  std::vector<record::Finding> findings;
};

struct StoredRun {
  int64_t id = 0;
  std::string where;  // the store, as it describes itself
  bool incomplete = false;
};

struct RunJobResult {
  // Each test as it ended, in order (forward first); a finished one's record holds its
  // findings. A job of two directions stops after a direction that failed.
  std::vector<engine::ClientOutcome> runs;
  std::optional<DirectionPair> pair;  // when both directions finished
  std::vector<StoredRun> stored;      // in the order of `runs`
  // Why a kept run was not stored (the runs after it were not tried); nullopt when all were.
  std::optional<Error> store_error;
};

// What a job tells its caller while it runs, for live output: the engine's events of each test
// (engine::ClientEvents) and the job's own. The defaults do nothing.
class RunJobEvents : public engine::ClientEvents {
 public:
  // A test of the job is about to start; `test` is its config (its direction set).
  virtual void TestStarting(const engine::ClientConfig& /*test*/) {}
  // A test ended, was named and diagnosed; `outcome.record` holds its own findings only.
  virtual void TestEnded(const engine::ClientOutcome& /*outcome*/) {}
  // Both directions finished (after the second's TestEnded); the pair's findings are merged
  // into the second record right after this.
  virtual void PairEnded(const DirectionPair& /*pair*/) {}
};

// Runs the job. An error only when it could not start (the loopback server's socket); every
// test's failure is in its outcome. REQUIRES: record::Validate(spec.client.spec) passed.
Result<RunJobResult> RunJob(const RunJobSpec& spec, RunJobEvents& events);
Result<RunJobResult> RunJob(const RunJobSpec& spec);

// Whether a test's run is worth storing: every finished one, and one interrupted after data
// moved, marked incomplete (50 s of a 60 s run; history and compare leave it out unless asked,
// docs/store.md). A run that failed otherwise is not: its figures may be the failure's.
bool Kept(const engine::ClientOutcome& outcome);

}  // namespace nicbench::job
