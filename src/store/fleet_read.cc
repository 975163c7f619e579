// Reading the fleet's jobs back: a mesh's jobs, their attempts, and each pair's latest result
// with the goodput of its stored run (the grid, docs/fleet.md).
#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "store/fleet_rows.h"

namespace nicbench::store::fleet {
namespace {

// The figure of a stored run that a grid cell shows: the receiver's count of what the client
// (the sender's agent) sent.
constexpr const char* kGoodputKey = "goodput_client_to_server_bits_per_second";

// Earlier successful runs per pair the grid reads for the pair's own history.
constexpr size_t kHistoryRuns = 20;

std::optional<double> Goodput(const SqlValue& figures) {
  if (IsNull(figures)) return std::nullopt;
  auto doc = nlohmann::json::parse(AsText(figures), nullptr, false);
  if (!doc.is_object() || !doc.contains(kGoodputKey) || !doc[kGoodputKey].is_number()) {
    return std::nullopt;
  }
  return doc[kGoodputKey].get<double>();
}

}  // namespace

FleetJob JobFromRow(const SqlRow& r, size_t f) {
  FleetJob j;
  j.id = AsInt(r[f]);
  j.mesh_id = AsInt(r[f + 1]);
  j.period = AsInt(r[f + 2]);
  j.sender = AsText(r[f + 3]);
  j.receiver = AsText(r[f + 4]);
  j.test = WordsFromJson(AsText(r[f + 5]));
  j.state = AsText(r[f + 6]);
  j.attempts = static_cast<int>(AsInt(r[f + 7]));
  j.lease_owner = AsText(r[f + 8]);
  j.lease_until = AsDouble(r[f + 9]);
  j.created_secs = AsDouble(r[f + 10]);
  j.started_secs = AsDouble(r[f + 11]);
  j.finished_secs = AsDouble(r[f + 12]);
  if (!IsNull(r[f + 13])) j.run_id = AsInt(r[f + 13]);
  j.error = AsText(r[f + 14]);
  return j;
}

Result<std::vector<FleetJob>> Jobs(Connection& c, int64_t mesh_id, size_t limit) {
  std::string sql =
      fmt::format("SELECT {} FROM fleet_jobs WHERE mesh_id = ? ORDER BY id DESC", kJobColumns);
  std::vector<SqlValue> params = {mesh_id};
  if (limit > 0) {
    sql += " LIMIT ?";
    params.emplace_back(static_cast<int64_t>(limit));
  }
  auto rows = c.Query(sql, params);
  if (!rows) return tl::unexpected(rows.error());
  std::vector<FleetJob> jobs;
  for (const SqlRow& r : *rows) jobs.push_back(JobFromRow(r));
  return jobs;
}

Result<std::vector<FleetAttempt>> Attempts(Connection& c, int64_t mesh_id) {
  auto rows = c.Query(
      "SELECT a.job_id, a.attempt, a.agent, a.sender, a.receiver, a.outcome, a.started_secs, "
      "a.ended_secs FROM fleet_attempts a JOIN fleet_jobs j ON j.id = a.job_id WHERE "
      "j.mesh_id = ? ORDER BY a.started_secs",
      {mesh_id});
  if (!rows) return tl::unexpected(rows.error());
  std::vector<FleetAttempt> attempts;
  for (const SqlRow& r : *rows) {
    FleetAttempt a;
    a.job_id = AsInt(r[0]);
    a.attempt = static_cast<int>(AsInt(r[1]));
    a.agent = AsText(r[2]);
    a.sender = AsText(r[3]);
    a.receiver = AsText(r[4]);
    a.outcome = AsText(r[5]);
    a.started_secs = AsDouble(r[6]);
    if (!IsNull(r[7])) a.ended_secs = AsDouble(r[7]);
    attempts.push_back(std::move(a));
  }
  return attempts;
}

Result<std::vector<PairResult>> Grid(Connection& c, int64_t mesh_id) {
  auto latest = c.Query(fmt::format("SELECT {} FROM fleet_jobs WHERE id IN (SELECT max(id) FROM "
                                    "fleet_jobs WHERE mesh_id = ? GROUP BY sender, receiver) "
                                    "ORDER BY sender, receiver",
                                    kJobColumns),
                        {mesh_id});
  if (!latest) return tl::unexpected(latest.error());
  std::map<std::pair<std::string, std::string>, PairResult> pairs;
  for (const SqlRow& r : *latest) {
    FleetJob job = JobFromRow(r);
    PairResult& p = pairs[{job.sender, job.receiver}];
    p.sender = job.sender;
    p.receiver = job.receiver;
    p.latest = std::move(job);
  }
  // The pair's successful jobs, newest first: the first is the cell's result, the rest its
  // history.
  auto done = c.Query(fmt::format("SELECT {}, r.figures, r.top_finding, r.top_severity FROM "
                                  "fleet_jobs j JOIN runs r ON r.id = j.run_id WHERE j.mesh_id = "
                                  "? AND j.state = 'done' ORDER BY j.id DESC",
                                  "j.id, j.mesh_id, j.period, j.sender, j.receiver, j.options, "
                                  "j.state, j.attempts, j.lease_owner, j.lease_until, "
                                  "j.created_secs, j.started_secs, j.finished_secs, j.run_id, "
                                  "j.error"),
                      {mesh_id});
  if (!done) return tl::unexpected(done.error());
  for (const SqlRow& r : *done) {
    FleetJob job = JobFromRow(r);
    PairResult& p = pairs[{job.sender, job.receiver}];
    const std::optional<double> goodput = Goodput(r[15]);
    if (!p.last_done) {
      p.goodput_bits_per_second = goodput;
      p.top_finding = AsText(r[16]);
      p.top_severity = AsText(r[17]);
      p.last_done = std::move(job);
    } else if (goodput && p.history_bits_per_second.size() < kHistoryRuns) {
      p.history_bits_per_second.push_back(*goodput);
    }
  }
  std::vector<PairResult> out;
  for (auto& [key, p] : pairs) {
    std::reverse(p.history_bits_per_second.begin(), p.history_bits_per_second.end());
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace nicbench::store::fleet
