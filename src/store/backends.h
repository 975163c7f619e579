// Internal to store: the two Connection implementations (sql.h) and how to open them.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "base/result.h"
#include "store/sql.h"
#include "store/store.h"

namespace nicbench::store {

// A SQLite file. Creates it (and its parent directories, mode 0700) only in kCreate mode;
// WAL journal, foreign keys on, the busy timeout given. A file that is not a SQLite database is
// refused on the first statement and left as it is.
Result<std::unique_ptr<Connection>> OpenSqlite(const std::string& path, OpenMode mode,
                                               std::chrono::milliseconds busy_timeout);

// A PostgreSQL database named by a libpq connection URI. Fails with a clear message in a build
// without libpq (HavePostgres() is false).
Result<std::unique_ptr<Connection>> OpenPostgres(const std::string& url,
                                                 std::chrono::milliseconds busy_timeout);

// The URL with any password replaced by "***", for messages.
std::string RedactUrl(const std::string& url);

}  // namespace nicbench::store
