// The fleet's job queue (docs/fleet.md, "The queue"): periods written, jobs claimed under a
// lease with both hosts' rows, leases renewed or expired, jobs finished. Every transaction
// locks in one order, a job's row before its hosts' rows, and never waits for a row another
// holds (SKIP LOCKED), so agents racing for overlapping pairs cannot deadlock.
#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "store/fleet_rows.h"
#include "store/sql_store.h"

namespace nicbench::store::fleet {
namespace {

// Candidate jobs looked at per claim: those whose hosts are busy are passed over.
constexpr int64_t kClaimCandidates = 16;

// Why a host cannot take part in a test now, or "" when it can.
std::string Offline(const std::map<std::string, double>& heartbeats, const std::string& host,
                    double now, const LeaseTerms& terms) {
  auto it = heartbeats.find(host);
  if (it == heartbeats.end()) return fmt::format("host {} has no agent registered", host);
  const double age = now - it->second;
  if (age > terms.offline_after) {
    return fmt::format("host {} offline: no heartbeat for {:.0f} s", host, age);
  }
  return "";
}

Status WritePeriod(Connection& c, const SqlRow& mesh, double now, const LeaseTerms& terms,
                   const std::map<std::string, double>& heartbeats, int& written) {
  const int64_t id = AsInt(mesh[0]);
  const int64_t period = AsInt(mesh[3]);
  auto s = c.Exec(
      "UPDATE fleet_jobs SET state = 'skipped', finished_secs = ?, error = 'not run within its "
      "period: its hosts were busy or offline' WHERE mesh_id = ? AND state = 'queued'",
      {now, id});
  if (!s) return s;
  const auto definition = nlohmann::json::parse(AsText(mesh[1]), nullptr, false);
  const std::string test =
      definition.is_object() ? definition.value("test", nlohmann::json::array()).dump() : "[]";
  for (const auto& pair : definition.value("pairs", nlohmann::json::array())) {
    if (!pair.is_array() || pair.size() != 2) continue;
    const std::string from = pair[0].get<std::string>(), to = pair[1].get<std::string>();
    std::string why = Offline(heartbeats, from, now, terms);
    if (why.empty()) why = Offline(heartbeats, to, now, terms);
    s = c.Exec(
        "INSERT INTO fleet_jobs (mesh_id, period, sender, receiver, options, state, "
        "created_secs, finished_secs, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO "
        "NOTHING",
        {id, period, from, to, test, std::string(why.empty() ? kJobQueued : kJobSkipped), now,
         why.empty() ? SqlValue() : SqlValue(now), why});
    if (!s) return s;
    ++written;
  }
  // The next period follows this one; periods missed while no agent ran are not made up.
  const double every = AsDouble(mesh[2]);
  double next = AsDouble(mesh[4]) + every;
  if (next <= now) next = now + every;
  return c.Exec("UPDATE fleet_meshes SET period = period + 1, next_secs = ? WHERE id = ?",
                {next, id});
}

}  // namespace

Result<int> Schedule(Connection& c, double now, const LeaseTerms& terms) {
  Transaction t(c);
  if (auto s = t.BeginWrite(); !s) return tl::unexpected(s.error());
  // Another agent writing the same mesh's period holds its row: skipped, it is being done.
  auto meshes = c.Query(
      "SELECT id, definition, every_secs, period, next_secs FROM fleet_meshes WHERE state = "
      "'active' AND next_secs <= ? ORDER BY id FOR UPDATE SKIP LOCKED",
      {now});
  if (!meshes) return tl::unexpected(meshes.error());
  if (meshes->empty()) return 0;
  auto hosts = c.Query("SELECT name, heartbeat_secs FROM fleet_hosts");
  if (!hosts) return tl::unexpected(hosts.error());
  std::map<std::string, double> heartbeats;
  for (const SqlRow& r : *hosts) heartbeats[AsText(r[0])] = AsDouble(r[1]);
  int written = 0;
  for (const SqlRow& mesh : *meshes) {
    if (auto s = WritePeriod(c, mesh, now, terms, heartbeats, written); !s) {
      return tl::unexpected(s.error());
    }
  }
  if (auto s = t.Commit(); !s) return tl::unexpected(s.error());
  return written;
}

Result<int> ExpireLeases(Connection& c, double now, const LeaseTerms& terms) {
  Transaction t(c);
  if (auto s = t.BeginWrite(); !s) return tl::unexpected(s.error());
  // Attempts released by a stopping agent are not re-runs: they do not count against the bound.
  auto rows = c.Query(
      "SELECT j.id, j.attempts, j.lease_owner, (SELECT COUNT(*) FROM fleet_attempts a WHERE "
      "a.job_id = j.id AND a.outcome = 'released') FROM fleet_jobs j WHERE j.state = 'running' "
      "AND j.lease_until < ? ORDER BY j.id FOR UPDATE OF j SKIP LOCKED",
      {now});
  if (!rows) return tl::unexpected(rows.error());
  for (const SqlRow& r : *rows) {
    const int64_t id = AsInt(r[0]), attempts = AsInt(r[1]);
    const bool again = attempts - AsInt(r[3]) < terms.max_attempts;
    const std::string why =
        fmt::format("the lease of agent {} expired (attempt {})", AsText(r[2]), attempts);
    auto s = c.Exec(
        again ? "UPDATE fleet_jobs SET state = 'queued', lease_owner = '', error = ? WHERE id = ?"
              : "UPDATE fleet_jobs SET state = 'failed', lease_owner = '', error = ?, "
                "finished_secs = ? WHERE id = ?",
        again ? std::vector<SqlValue>{why, id}
              : std::vector<SqlValue>{why + "; not run a third time", now, id});
    if (s) {
      s = c.Exec("UPDATE fleet_hosts SET busy_job = NULL, busy_until = 0 WHERE busy_job = ?", {id});
    }
    if (s) {
      s = c.Exec(
          "UPDATE fleet_attempts SET outcome = 'lease expired', ended_secs = ? WHERE "
          "job_id = ? AND attempt = ?",
          {now, id, attempts});
    }
    if (!s) return tl::unexpected(s.error());
  }
  if (auto s = t.Commit(); !s) return tl::unexpected(s.error());
  return static_cast<int>(rows->size());
}

namespace {

// Locks both hosts of the job when both are free and no other transaction holds either: the
// receiver's address (its first registered one), or nullopt, leaving them as they were.
Result<std::optional<std::string>> LockHosts(Connection& c, const std::string& sender,
                                             const std::string& receiver, double now) {
  auto free = c.Query(
      "SELECT name, addresses FROM fleet_hosts WHERE name IN (?, ?) AND busy_until <= ? ORDER "
      "BY name FOR UPDATE SKIP LOCKED",
      {sender, receiver, now});
  if (!free) return tl::unexpected(free.error());
  if (free->size() != 2) return std::optional<std::string>();
  for (const SqlRow& row : *free) {
    if (AsText(row[0]) != receiver) continue;
    auto words = WordsFromJson(AsText(row[1]));
    return std::optional<std::string>(words.empty() ? receiver : words.front());
  }
  return std::optional<std::string>();
}

// Marks the hosts busy, the job running under `agent`'s lease and its attempt begun, in one
// statement (PostgreSQL's data-modifying WITH: one round trip instead of three).
Result<FleetJob> MarkClaimed(Connection& c, int64_t id, const std::string& sender,
                             const std::string& receiver, std::string_view agent, double now,
                             double until) {
  auto rows = c.Query(
      fmt::format(
          "WITH hosts AS (UPDATE fleet_hosts SET busy_job = ?, busy_until = ? WHERE name IN "
          "(?, ?)), job AS (UPDATE fleet_jobs SET state = 'running', attempts = attempts + 1, "
          "lease_owner = ?, lease_until = ?, started_secs = ? WHERE id = ? RETURNING {}), "
          "attempt AS (INSERT INTO fleet_attempts (job_id, attempt, agent, sender, receiver, "
          "started_secs) SELECT id, attempts, lease_owner, sender, receiver, started_secs FROM "
          "job) SELECT * FROM job",
          kJobColumns),
      {id, until, sender, receiver, std::string(agent), until, now, id});
  if (!rows) return tl::unexpected(rows.error());
  if (rows->empty()) return Fail(fmt::format("job {}: gone while it was claimed", id));
  return JobFromRow(rows->at(0));
}

}  // namespace

Result<std::optional<FleetJob>> Claim(Connection& c, std::string_view agent, double now,
                                      const LeaseTerms& terms) {
  Transaction t(c);
  if (auto s = t.BeginWrite(); !s) return tl::unexpected(s.error());
  // Jobs whose hosts look busy in this snapshot are not even locked; the hosts' rows are
  // checked again under their locks below.
  auto candidates = c.Query(
      "SELECT j.id, j.receiver FROM fleet_jobs j WHERE j.sender = ? AND j.state = 'queued' AND "
      "NOT EXISTS (SELECT 1 FROM fleet_hosts h WHERE h.name IN (j.sender, j.receiver) AND "
      "h.busy_until > ?) ORDER BY j.id LIMIT ? FOR UPDATE OF j SKIP LOCKED",
      {std::string(agent), now, kClaimCandidates});
  if (!candidates) return tl::unexpected(candidates.error());
  const double until = now + terms.lease;
  for (const SqlRow& r : *candidates) {
    const int64_t id = AsInt(r[0]);
    const std::string sender(agent), receiver = AsText(r[1]);
    auto address = LockHosts(c, sender, receiver, now);
    if (!address) return tl::unexpected(address.error());
    if (!*address) continue;
    auto job = MarkClaimed(c, id, sender, receiver, agent, now, until);
    if (!job) return tl::unexpected(job.error());
    job->receiver_address = **address;
    if (auto s = t.Commit(); !s) return tl::unexpected(s.error());
    return std::optional<FleetJob>(std::move(*job));
  }
  if (auto s = t.Commit(); !s) return tl::unexpected(s.error());
  return std::optional<FleetJob>();
}

namespace {

// Locks the claimed job's row when the claim still holds: false when the lease was lost (it
// expired and the job was requeued, claimed again, or its mesh deleted).
Result<bool> StillHeld(Connection& c, const FleetJob& job) {
  auto rows = c.Query(
      "SELECT id FROM fleet_jobs WHERE id = ? AND state = 'running' AND lease_owner = ? AND "
      "attempts = ? FOR UPDATE",
      {job.id, job.lease_owner, int64_t{job.attempts}});
  if (!rows) return tl::unexpected(rows.error());
  return !rows->empty();
}

Status LeaseLost(const FleetJob& job) {
  return Fail(fmt::format("job {} ({} -> {}): the lease was lost (it expired)", job.id, job.sender,
                          job.receiver));
}

// Ends the claimed job: its state, its attempt's outcome, its hosts freed, in one statement.
Status End(Connection& c, const FleetJob& job, std::string_view state, std::string_view error,
           std::optional<int64_t> run_id, double now) {
  return c.Exec(
      "WITH hosts AS (UPDATE fleet_hosts SET busy_job = NULL, busy_until = 0 WHERE busy_job = "
      "?), attempt AS (UPDATE fleet_attempts SET outcome = ?, ended_secs = ? WHERE job_id = ? "
      "AND attempt = ?) UPDATE fleet_jobs SET state = ?, error = ?, run_id = ?, finished_secs = "
      "?, lease_until = 0 WHERE id = ?",
      {job.id, std::string(state), now, job.id, int64_t{job.attempts}, std::string(state),
       std::string(error), run_id ? SqlValue(*run_id) : SqlValue(), now, job.id});
}

}  // namespace

Status Renew(Connection& c, const FleetJob& job, double now, const LeaseTerms& terms) {
  Transaction t(c);
  if (auto s = t.BeginWrite(); !s) return s;
  auto held = StillHeld(c, job);
  if (!held) return tl::unexpected(held.error());
  if (!*held) return LeaseLost(job);
  const double until = now + terms.lease;
  auto s = c.Exec("UPDATE fleet_jobs SET lease_until = ? WHERE id = ?", {until, job.id});
  if (s) s = c.Exec("UPDATE fleet_hosts SET busy_until = ? WHERE busy_job = ?", {until, job.id});
  if (!s) return s;
  return t.Commit();
}

Result<int64_t> Finish(Connection& c, const FleetJob& job, const record::RunRecord& run,
                       const Labels& labels, double now) {
  Transaction t(c);
  if (auto s = t.BeginWrite(); !s) return tl::unexpected(s.error());
  auto held = StillHeld(c, job);
  if (!held) return tl::unexpected(held.error());
  if (!*held) return tl::unexpected(LeaseLost(job).error());
  auto id = InsertRun(c, run, labels);
  if (!id) return id;
  if (auto s = End(c, job, kJobDone, "", *id, now); !s) return tl::unexpected(s.error());
  if (auto s = t.Commit(); !s) return tl::unexpected(s.error());
  return id;
}

Status Release(Connection& c, const FleetJob& job, std::string_view reason, double now) {
  Transaction t(c);
  if (auto s = t.BeginWrite(); !s) return s;
  auto held = StillHeld(c, job);
  if (!held) return tl::unexpected(held.error());
  if (!*held) return LeaseLost(job);
  auto s = c.Exec(
      "WITH hosts AS (UPDATE fleet_hosts SET busy_job = NULL, busy_until = 0 WHERE busy_job = "
      "?), attempt AS (UPDATE fleet_attempts SET outcome = 'released', ended_secs = ? WHERE "
      "job_id = ? AND attempt = ?) UPDATE fleet_jobs SET state = 'queued', lease_owner = '', "
      "lease_until = 0, error = ? WHERE id = ?",
      {job.id, now, job.id, int64_t{job.attempts}, std::string(reason), job.id});
  if (!s) return s;
  return t.Commit();
}

Status FailJob(Connection& c, const FleetJob& job, std::string_view reason, double now) {
  Transaction t(c);
  if (auto s = t.BeginWrite(); !s) return s;
  auto held = StillHeld(c, job);
  if (!held) return tl::unexpected(held.error());
  if (!*held) return LeaseLost(job);
  if (auto s = End(c, job, kJobFailed, reason, std::nullopt, now); !s) return s;
  return t.Commit();
}

}  // namespace nicbench::store::fleet
