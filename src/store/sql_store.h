// Internal to store: the Store written once over a Connection (sql.h), and the schema with its
// migrations (schema.cc). Thread-compatible, as Store.
#pragma once

#include <memory>

#include "store/sql.h"
#include "store/store.h"

namespace nicbench::store {

// The schema version a database holds: 0 for an empty database (nothing of nicbench's yet).
// Fails for a database that holds tables of another program (a store is never written into
// those) and for one newer than kSchemaVersion.
Result<int> ReadSchemaVersion(Connection& c);

// Brings the database to kSchemaVersion, one migration after the other, in one transaction that
// also excludes other processes migrating at the same time. An empty database is created.
Status Migrate(Connection& c);

// Applies the migrations up to `version` only (tests build older databases with it).
Status MigrateTo(Connection& c, int version);

// Recomputes the derived columns of every stored run from its record (rr_mode, figures, and the
// facts): for a migration that changes what is derived (version 6). Runs whose record does not
// read keep NULL figures (every figure unknown) and Get names the problem.
Status RecomputeDerived(Connection& c);

// Inserts one run, its record and its labels (Store::Put's rows) inside the caller's
// transaction, so another table's change can commit with it (a fleet job marked done, fleet.h).
Result<int64_t> InsertRun(Connection& c, const record::RunRecord& run, const Labels& labels);

// REQUIRES: the connection's database is at kSchemaVersion.
std::unique_ptr<Store> MakeSqlStore(std::unique_ptr<Connection> c);

}  // namespace nicbench::store
