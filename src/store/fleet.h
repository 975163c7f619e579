// The fleet's shared state in the result store's PostgreSQL database (docs/fleet.md): the hosts
// that agents register, the meshes, and the job queue. The database is the coordinator: an
// agent claims a job with `SELECT ... FOR UPDATE SKIP LOCKED` under a lease, taking the rows of
// both of the job's hosts in the same transaction, so a host is in one test at a time and two
// agents racing for overlapping pairs never wait on each other (no deadlock: every transaction
// locks a job before its hosts and skips what another holds). Any agent also does the
// housekeeping (a mesh's next period, expired leases); the row locks make it happen once.
//
// Times are Unix seconds passed in by the caller (a clock seam: tests run hours in a moment).
//
// Thread safety: a Fleet is thread-compatible (one connection); use one per thread.
// Errors: every operation returns a Result naming the database; a lost connection is an error
// whose kind is kConnect, and the caller opens a new Fleet (agents back off and reconnect).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "record/run_record.h"
#include "store/store.h"

namespace nicbench::store {

// A host as its agent registered it.
// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's move, as store.h's Experiment.
struct FleetHost {
  std::string name;                    // unique in the fleet: the agent's --name
  std::vector<std::string> addresses;  // where its `nicbench serve` answers; the first is used
  std::string version;                 // nicbench's version
  nlohmann::json facts;                // host facts (kernel, CPUs, ...), JSON object
  double registered_secs = 0, heartbeat_secs = 0;
  std::optional<int64_t> busy_job;  // the job it is in, while busy_until is in the future
  double busy_until = 0;
};

// What a mesh asks for: the ordered pairs (sender, receiver), their test (run's options, the
// peer not included) and the period. `definition` is the whole definition as given (hosts,
// groups), kept for `mesh list` and the grid's order of hosts.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct MeshSpec {
  std::string name;
  std::vector<std::string> hosts;  // every host of the mesh, in the grid's order
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<std::string> test;
  double every_secs = 3600;
  nlohmann::json definition;
};

// NOLINTNEXTLINE(bugprone-exception-escape)
struct Mesh {
  int64_t id = 0;
  MeshSpec spec;
  std::string state;  // "active", "paused"
  double created_secs = 0, next_secs = 0;
  int64_t period = 0;  // the number of the next period to write
};

// Job states: queued -> running -> done | failed; queued -> skipped (a host offline, or the
// period ended before both hosts were free); running -> queued again when the lease expires the
// first time, -> failed the second; running -> queued when its agent stops and releases it.
inline constexpr std::string_view kJobQueued = "queued", kJobRunning = "running", kJobDone = "done",
                                  kJobFailed = "failed", kJobSkipped = "skipped";

struct FleetJob {
  int64_t id = 0, mesh_id = 0, period = 0;
  std::string sender, receiver;   // the sender's agent runs the test against the receiver
  std::vector<std::string> test;  // run's options, to be checked again by the agent
  std::string receiver_address;   // from the receiver's registration, at the claim
  std::string state;
  int attempts = 0;         // claims so far; at most 2 (one re-run after a lost lease)
  std::string lease_owner;  // the agent holding the lease while running
  double lease_until = 0;
  double created_secs = 0, started_secs = 0, finished_secs = 0;
  std::optional<int64_t> run_id;  // the stored run, when done
  std::string error;              // why it failed or was skipped
};

// One attempt at a job (fleet_attempts): who ran it, when, and how it ended.
struct FleetAttempt {
  int64_t job_id = 0;
  int attempt = 0;
  std::string agent, sender, receiver, outcome;
  double started_secs = 0;
  std::optional<double> ended_secs;
};

// The latest job of one ordered pair of a mesh and the latest that succeeded (the grid).
struct PairResult {
  std::string sender, receiver;
  FleetJob latest;
  std::optional<FleetJob> last_done;
  std::optional<double> goodput_bits_per_second;  // of last_done: sender to receiver
  std::string top_finding, top_severity;          // of last_done's run
  // The goodputs of the pair's earlier successful runs, oldest first (at most 20): the pair's
  // own history, for a threshold relative to it.
  std::vector<double> history_bits_per_second;
};

// How long things last, in seconds.
struct LeaseTerms {
  double lease = 30;          // a claim holds its job and hosts this long unless renewed
  double offline_after = 60;  // a host whose heartbeat is older is offline
  int max_attempts = 2;       // claims of one job: the first, and one after a lost lease
};

class Fleet {
 public:
  // Opens the fleet in the database at `url` (PostgreSQL only: the queue needs SKIP LOCKED),
  // creating or upgrading the schema as OpenStore does.
  static Result<std::unique_ptr<Fleet>> Open(
      std::string_view url, std::chrono::milliseconds timeout = kDefaultBusyTimeout);
  virtual ~Fleet() = default;
  virtual std::string Describe() const = 0;

  // Registers the host or refreshes its row (addresses, version, facts, heartbeat = now).
  virtual Status Heartbeat(const FleetHost& host, double now) = 0;
  virtual Result<std::vector<FleetHost>> Hosts() = 0;

  // Meshes. CreateMesh fails for a name in use or a host no agent has registered.
  virtual Result<int64_t> CreateMesh(const MeshSpec& spec, double now) = 0;
  virtual Result<std::vector<Mesh>> Meshes() = 0;
  virtual Result<std::optional<Mesh>> FindMesh(std::string_view name) = 0;
  // state: "active" or "paused"; resuming starts a period at once. Unknown name: an error.
  virtual Status SetMeshState(std::string_view name, std::string_view state, double now) = 0;
  virtual Status DeleteMesh(std::string_view name) = 0;  // and its jobs; runs stay

  // Housekeeping any agent does, each once however many agents call it: writes the jobs of
  // every active mesh whose period has come (one per pair; a pair with a host offline is
  // written skipped, naming the host; jobs of the period before still queued are skipped);
  // requeues or fails jobs whose lease expired. Each returns how many jobs it touched.
  virtual Result<int> Schedule(double now, const LeaseTerms& terms) = 0;
  virtual Result<int> ExpireLeases(double now, const LeaseTerms& terms) = 0;

  // Claims the oldest queued job `agent` sends whose two hosts are both free, marking both
  // busy until the lease ends; nullopt when there is none.
  virtual Result<std::optional<FleetJob>> Claim(std::string_view agent, double now,
                                                const LeaseTerms& terms) = 0;
  // Extends a claim's lease (and its hosts'); an error when the lease was lost.
  virtual Status Renew(const FleetJob& job, double now, const LeaseTerms& terms) = 0;
  // Stores the run and marks the job done in one transaction (stored exactly once); an error,
  // and nothing stored, when the lease was lost. Returns the run's id.
  virtual Result<int64_t> Finish(const FleetJob& job, const record::RunRecord& run,
                                 const Labels& labels, double now) = 0;
  // Marks the claimed job failed with the reason and frees its hosts.
  virtual Status FailJob(const FleetJob& job, std::string_view reason, double now) = 0;
  // Hands the claimed job back unrun (its agent is stopping): queued again at once, its hosts
  // freed, the attempt ended "released". A released attempt does not count against
  // LeaseTerms::max_attempts, which bounds re-runs after lost leases; an error when the lease
  // was lost.
  virtual Status Release(const FleetJob& job, std::string_view reason, double now) = 0;

  // Reading back: a mesh's jobs (newest first, at most `limit`, 0 = all), every attempt at
  // them, and the latest result of each pair.
  virtual Result<std::vector<FleetJob>> Jobs(int64_t mesh_id, size_t limit = 0) = 0;
  virtual Result<std::vector<FleetAttempt>> Attempts(int64_t mesh_id) = 0;
  virtual Result<std::vector<PairResult>> Grid(int64_t mesh_id) = 0;
};

}  // namespace nicbench::store
