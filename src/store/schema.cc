// The store's schema and its migrations. Migration N takes a database from version N-1 to N; a
// new database runs them all, so the path an old database takes is the path every database took.
// Schema documented in docs/store.md; kSchemaVersion in store.h.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "record/json.h"
#include "store/sql_store.h"
#include "store/summary.h"

namespace nicbench::store {
namespace {

// DDL with the dialect's types: {id} the auto-numbered key, {int} 64-bit integer, {real} double.
std::string Ddl(const Connection& c, std::string_view text) {
  const Dialect& d = c.dialect();
  return fmt::format(fmt::runtime(text), fmt::arg("id", d.id_column), fmt::arg("int", d.integer),
                     fmt::arg("real", d.real));
}

Status ExecAll(Connection& c, const std::vector<std::string_view>& statements) {
  for (std::string_view sql : statements) {
    if (auto s = c.Exec(Ddl(c, sql)); !s) return s;
  }
  return Ok();
}

// Version 1: runs with their indexed columns, their records, and their labels. The records live
// in a table of their own so that the runs table stays narrow: scanning it for `history` never
// steps over a record's overflow pages.
Status ToVersion1(Connection& c) {
  return ExecAll(
      c,
      {
          "CREATE TABLE nicbench_schema (version {int} NOT NULL)",
          "INSERT INTO nicbench_schema (version) VALUES (0)",
          "CREATE TABLE runs ("
          "{id}, stored_secs {int} NOT NULL, record_schema {int} NOT NULL, "
          "nicbench_version TEXT NOT NULL, start_time TEXT NOT NULL, start_secs {int} NOT NULL, "
          "client_host TEXT NOT NULL, server_host TEXT NOT NULL, peer TEXT NOT NULL, "
          "direction TEXT NOT NULL, protocol TEXT NOT NULL, streams {int} NOT NULL, "
          "duration_seconds {real} NOT NULL, sender_bps {real}, receiver_bps {real}, "
          "client_cpu_s_per_gb {real}, server_cpu_s_per_gb {real}, retransmits {int}, "
          "top_finding TEXT NOT NULL, top_severity TEXT NOT NULL, labels TEXT NOT NULL)",
          // One statement over lines, not a missing comma:
          // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
          "CREATE TABLE run_records (run_id {int} PRIMARY KEY REFERENCES runs (id) ON DELETE "
          "CASCADE, "
          "record TEXT NOT NULL)",
          "CREATE TABLE run_labels (run_id {int} NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
          "key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, key))",
          "CREATE INDEX run_labels_key_value ON run_labels (key, value, run_id)",
      });
}

// Version 2: experiments (`nicbench matrix`), the interrupt and RTT columns compare needs, and
// each run's configuration facts (filled by version 6's recomputation).
Status ToVersion2(Connection& c) {
  return ExecAll(c,
                 {
                     "ALTER TABLE runs ADD COLUMN client_irq_per_gb {real}",
                     "ALTER TABLE runs ADD COLUMN server_irq_per_gb {real}",
                     "ALTER TABLE runs ADD COLUMN mean_rtt_us {real}",
                     "ALTER TABLE run_records ADD COLUMN facts TEXT",
                     // One statement over lines, not a missing comma:
                     // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
                     "CREATE TABLE experiments ({id}, created_time TEXT NOT NULL, "
                     "created_secs {int} NOT NULL, state TEXT NOT NULL, definition TEXT NOT NULL)",
                 });
}

// Version 3: each direction's goodput. Versions 3 and 4 recomputed every figure column from the
// records; version 6 replaced those columns, and recomputes the figures itself.
Status ToVersion3(Connection& c) {
  return ExecAll(c, {
                        "ALTER TABLE runs ADD COLUMN c2s_sender_bps {real}",
                        "ALTER TABLE runs ADD COLUMN c2s_receiver_bps {real}",
                        "ALTER TABLE runs ADD COLUMN s2c_sender_bps {real}",
                        "ALTER TABLE runs ADD COLUMN s2c_receiver_bps {real}",
                    });
}

// The request/response figure columns of versions 4 and 5 (rr_mode stays).
constexpr const char* kRrFigureColumns[] = {"rr_tps",
                                            "rr_p50_us",
                                            "rr_p90_us",
                                            "rr_p99_us",
                                            "rr_p999_us",
                                            "rr_max_us",
                                            "rr_mean_us",
                                            "rr_connect_p50_us",
                                            "rr_connect_p99_us",
                                            "rr_lost",
                                            "rr_late",
                                            "rr_client_us_per_tx",
                                            "rr_server_us_per_tx",
                                            "rr_client_host_us_per_tx",
                                            "rr_server_host_us_per_tx"};

// Version 4: the request/response figures (docs/rr.md) and the test's mode ('' for a bulk run).
Status ToVersion4(Connection& c) {
  auto s = c.Exec("ALTER TABLE runs ADD COLUMN rr_mode TEXT NOT NULL DEFAULT ''");
  for (const char* column : kRrFigureColumns) {
    if (!s) return s;
    s = c.Exec(Ddl(c, std::string("ALTER TABLE runs ADD COLUMN ") + column + " {real}"));
  }
  return s;
}

// Version 5: runs interrupted after data moved are stored, marked incomplete (docs/store.md).
// No stored run was incomplete before: nicbench stored only finished runs.
Status ToVersion5(Connection& c) {
  return ExecAll(c, {"ALTER TABLE runs ADD COLUMN incomplete {int} NOT NULL DEFAULT 0"});
}

// Version 6: the figures as one column, every figure of the table of figures (analysis/
// figure_table.h) with the reason an unknown one is unknown, recomputed from the records; the
// column per figure of versions 1 to 5 dropped (SQLite 3.35 and later drop columns).
Status ToVersion6(Connection& c) {
  auto s = c.Exec("ALTER TABLE runs ADD COLUMN figures TEXT");
  if (!s) return s;
  if (s = RecomputeDerived(c); !s) return s;
  std::vector<std::string> dropped = {
      "sender_bps",     "receiver_bps",      "client_cpu_s_per_gb", "server_cpu_s_per_gb",
      "retransmits",    "client_irq_per_gb", "server_irq_per_gb",   "mean_rtt_us",
      "c2s_sender_bps", "c2s_receiver_bps",  "s2c_sender_bps",      "s2c_receiver_bps"};
  dropped.insert(dropped.end(), std::begin(kRrFigureColumns), std::end(kRrFigureColumns));
  for (const std::string& column : dropped) {
    if (s = c.Exec("ALTER TABLE runs DROP COLUMN " + column); !s) return s;
  }
  return s;
}

// Version 7: the monitor's events (docs/monitor.md), one row per opened or resolved line; the
// evidence is a JSON array of strings.
Status ToVersion7(Connection& c) {
  return ExecAll(
      c, {
             // One statement over lines, not a missing comma:
             // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
             "CREATE TABLE monitor_events ({id}, monitor TEXT NOT NULL, event_id {int} NOT NULL, "
             "kind TEXT NOT NULL, state TEXT NOT NULL, subject TEXT NOT NULL, "
             "time_secs {real} NOT NULL, opened_secs {real} NOT NULL, summary TEXT NOT NULL, "
             "evidence TEXT NOT NULL)",
             "CREATE INDEX monitor_events_monitor ON monitor_events (monitor, id)",
         });
}

// Version 8: the fleet (docs/fleet.md): the hosts its agents register, the meshes, the job queue
// with its leases, and every attempt at a job (which host ran what when: the proof that no host
// ran two tests at once). Times are Unix seconds; lists and facts are JSON text.
Status ToVersion8(Connection& c) {
  return ExecAll(
      c, {
             // One statement over lines, not a missing comma:
             // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
             "CREATE TABLE fleet_hosts (name TEXT PRIMARY KEY, addresses TEXT NOT NULL, "
             "nicbench_version TEXT NOT NULL, facts TEXT NOT NULL, registered_secs {real} NOT "
             "NULL, heartbeat_secs {real} NOT NULL, busy_job {int}, busy_until {real} NOT NULL "
             "DEFAULT 0)",
             // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
             "CREATE TABLE fleet_meshes ({id}, name TEXT NOT NULL UNIQUE, definition TEXT NOT "
             "NULL, every_secs {real} NOT NULL, state TEXT NOT NULL, created_secs {real} NOT "
             "NULL, next_secs {real} NOT NULL, period {int} NOT NULL DEFAULT 0)",
             // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
             "CREATE TABLE fleet_jobs ({id}, mesh_id {int} NOT NULL REFERENCES fleet_meshes "
             "(id) ON DELETE CASCADE, period {int} NOT NULL, sender TEXT NOT NULL, receiver "
             "TEXT NOT NULL, options TEXT NOT NULL, state TEXT NOT NULL, attempts {int} NOT "
             "NULL DEFAULT 0, lease_owner TEXT NOT NULL DEFAULT '', lease_until {real} NOT NULL "
             "DEFAULT 0, created_secs {real} NOT NULL, started_secs {real}, finished_secs "
             "{real}, run_id {int}, error TEXT NOT NULL DEFAULT '', "
             "UNIQUE (mesh_id, period, sender, receiver))",
             "CREATE INDEX fleet_jobs_queue ON fleet_jobs (sender, state, id)",
             "CREATE INDEX fleet_jobs_pairs ON fleet_jobs (mesh_id, sender, receiver, id)",
             // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
             "CREATE TABLE fleet_attempts (job_id {int} NOT NULL REFERENCES fleet_jobs (id) ON "
             "DELETE CASCADE, attempt {int} NOT NULL, agent TEXT NOT NULL, sender TEXT NOT NULL, "
             "receiver TEXT NOT NULL, started_secs {real} NOT NULL, ended_secs {real}, "
             "outcome TEXT NOT NULL DEFAULT '', PRIMARY KEY (job_id, attempt))",
         });
}

using Migration = Status (*)(Connection&);
constexpr Migration kMigrations[] = {ToVersion1, ToVersion2, ToVersion3, ToVersion4,
                                     ToVersion5, ToVersion6, ToVersion7, ToVersion8};
static_assert(std::size(kMigrations) == kSchemaVersion, "one migration per schema version");

Status Upgrade(Connection& c, int target) {
  Transaction t(c);
  if (auto s = t.BeginWrite(); !s) return s;
  if (auto s = c.LockSchema(); !s) return s;
  // Another process may have migrated between our first look and the lock.
  auto version = ReadSchemaVersion(c);
  if (!version) return tl::unexpected(version.error());
  if (*version >= target) return Ok();
  for (int v = *version; v < target; ++v) {
    if (auto s = kMigrations[v](c); !s) {
      return Fail(fmt::format("upgrading the store to schema {}: {}", v + 1, s.error().message),
                  s.error().sys_errno);
    }
  }
  if (auto s = c.Exec("UPDATE nicbench_schema SET version = ?", {int64_t{target}}); !s) return s;
  return t.Commit();
}

}  // namespace

Result<int> ReadSchemaVersion(Connection& c) {
  auto tables = c.Tables();
  if (!tables) return tl::unexpected(tables.error());
  auto has = [&](std::string_view name) {
    return std::find(tables->begin(), tables->end(), name) != tables->end();
  };
  if (!has("nicbench_schema")) {
    for (const char* ours : {"runs", "run_records", "run_labels", "experiments", "monitor_events",
                             "fleet_hosts", "fleet_meshes", "fleet_jobs", "fleet_attempts"}) {
      if (has(ours)) {
        return Fail(fmt::format("{}: has a table '{}' that is not nicbench's; not a result store",
                                c.Describe(), ours));
      }
    }
    if (c.dialect().whole_database && !tables->empty()) {
      return Fail(
          fmt::format("{}: a database of another program (it has tables, none of them "
                      "nicbench's); left untouched, choose another --store",
                      c.Describe()));
    }
    return 0;
  }
  auto rows = c.Query("SELECT version FROM nicbench_schema");
  if (!rows) return tl::unexpected(rows.error());
  if (rows->size() != 1) {
    return Fail(fmt::format("{}: the schema version table holds {} rows, not 1", c.Describe(),
                            rows->size()));
  }
  const int version = static_cast<int>(AsInt((*rows)[0][0]));
  if (version > kSchemaVersion) {
    return Fail(
        fmt::format("{}: made by a newer nicbench (store schema {}; this nicbench reads "
                    "up to {}); upgrade nicbench or choose another --store",
                    c.Describe(), version, kSchemaVersion));
  }
  return version;
}

Status MigrateTo(Connection& c, int version) {
  auto current = ReadSchemaVersion(c);
  if (!current) return tl::unexpected(current.error());
  if (*current >= version) return Ok();
  return Upgrade(c, version);
}

Status Migrate(Connection& c) { return MigrateTo(c, kSchemaVersion); }

namespace {

// The derived columns of one run: its mode, its figures.
Status UpdateDerived(Connection& c, int64_t id, const RunSummary& s) {
  return c.Exec("UPDATE runs SET rr_mode = ?, figures = ? WHERE id = ?",
                {s.rr_mode, analysis::FigureValuesToJson(s.figures).dump(), id});
}

}  // namespace

Status RecomputeDerived(Connection& c) {
  int64_t after = 0;
  for (;;) {
    auto rows = c.Query(
        "SELECT run_id, record FROM run_records WHERE run_id > ? ORDER BY run_id "
        "LIMIT 200",
        {after});
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return Ok();
    for (const SqlRow& row : *rows) {
      after = AsInt(row[0]);
      auto doc = nlohmann::json::parse(AsText(row[1]), nullptr, false);
      auto run = record::RunRecordFromJson(doc);
      if (!run) continue;  // left NULL: unknown, and Get will name the problem
      auto st = UpdateDerived(c, after, Summarize(*run));
      if (!st) return st;
      st = c.Exec("UPDATE run_records SET facts = ? WHERE run_id = ?",
                  {FactsOf(*run).dump(), after});
      if (!st) return st;
    }
  }
}

}  // namespace nicbench::store
