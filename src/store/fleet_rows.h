// Internal to store: the fleet's queries (fleet.h) as functions over one Connection, so the
// Fleet class only ties them to its connection. Each takes the times it needs from the caller.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "store/fleet.h"
#include "store/sql.h"

namespace nicbench::store::fleet {

// The columns of a job, in the order JobFromRow reads them.
inline constexpr const char* kJobColumns =
    "id, mesh_id, period, sender, receiver, options, state, attempts, lease_owner, lease_until, "
    "created_secs, started_secs, finished_secs, run_id, error";
FleetJob JobFromRow(const SqlRow& row, size_t first = 0);
std::vector<std::string> WordsFromJson(const std::string& text);

// fleet_hosts.cc
Status Heartbeat(Connection& c, const FleetHost& host, double now);
Result<std::vector<FleetHost>> Hosts(Connection& c);
Result<int64_t> CreateMesh(Connection& c, const MeshSpec& spec, double now);
Result<std::vector<Mesh>> Meshes(Connection& c, std::string_view name);  // "" = all
Status SetMeshState(Connection& c, std::string_view name, std::string_view state, double now);
Status DeleteMesh(Connection& c, std::string_view name);

// fleet_queue.cc
Result<int> Schedule(Connection& c, double now, const LeaseTerms& terms);
Result<int> ExpireLeases(Connection& c, double now, const LeaseTerms& terms);
Result<std::optional<FleetJob>> Claim(Connection& c, std::string_view agent, double now,
                                      const LeaseTerms& terms);
Status Renew(Connection& c, const FleetJob& job, double now, const LeaseTerms& terms);
Result<int64_t> Finish(Connection& c, const FleetJob& job, const record::RunRecord& run,
                       const Labels& labels, double now);
Status FailJob(Connection& c, const FleetJob& job, std::string_view reason, double now);
Status Release(Connection& c, const FleetJob& job, std::string_view reason, double now);

// fleet_read.cc
Result<std::vector<FleetJob>> Jobs(Connection& c, int64_t mesh_id, size_t limit);
Result<std::vector<FleetAttempt>> Attempts(Connection& c, int64_t mesh_id);
Result<std::vector<PairResult>> Grid(Connection& c, int64_t mesh_id);

}  // namespace nicbench::store::fleet
