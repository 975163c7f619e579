// The SQLite Connection: one database file, WAL journal so readers never wait for a writer,
// a busy timeout so two writers take turns, and SQLite's result codes turned into messages that
// say what to do (read-only, disk full, locked, not a database).
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>

#include <fmt/format.h>

#include "store/backends.h"
#include "store/sql_store.h"

namespace nicbench::store {
namespace {

// What the user can do about a failure, by SQLite's primary result code.
std::string Explain(int code, std::chrono::milliseconds busy_timeout) {
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return fmt::format("the store is locked by another writer (still busy after {} ms)",
                         busy_timeout.count());
    case SQLITE_READONLY:
      return "the store is read-only (no write permission on the file or its directory)";
    case SQLITE_FULL: return "the disk is full";
    case SQLITE_NOTADB: return "not a SQLite database (left untouched; choose another --store)";
    case SQLITE_CORRUPT: return "the database file is corrupt";
    case SQLITE_CANTOPEN:
      return "cannot open the file (does its directory exist and allow writing?)";
    case SQLITE_PERM: return "permission denied";
    case SQLITE_IOERR: return "I/O error";
    default: return "";
  }
}

class SqliteConnection final : public Connection {
 public:
  SqliteConnection(sqlite3* db, std::string path, std::chrono::milliseconds busy_timeout)
      : db_(db), path_(std::move(path)), busy_timeout_(busy_timeout) {
    dialect_.id_column = "id INTEGER PRIMARY KEY AUTOINCREMENT";
    dialect_.integer = "INTEGER";
    dialect_.real = "REAL";
    dialect_.begin_write = "BEGIN IMMEDIATE";
    dialect_.whole_database = true;
  }
  ~SqliteConnection() override { sqlite3_close_v2(db_); }

  const Dialect& dialect() const override { return dialect_; }

  // Runs `sql` again while SQLite says SQLITE_BUSY, until the busy timeout has passed. For the
  // statements SQLite runs without its busy handler: switching to WAL takes the exclusive lock
  // and returns SQLITE_BUSY at once when another connection holds any lock, so stores opened
  // for the first time at the same moment (parallel runs of one user) failed all but one.
  Status ExecWhileBusy(const char* sql) {
    const auto deadline = std::chrono::steady_clock::now() + busy_timeout_;
    for (;;) {
      const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
      if (rc == SQLITE_OK) return Ok();
      if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) {
        return Failure(rc);
      }
      sqlite3_sleep(2);
    }
  }
  std::string Describe() const override { return "sqlite:" + path_; }
  Status LockSchema() override { return Ok(); }

  tl::unexpected<Error> Failure(int rc) const {
    std::string why = Explain(rc, busy_timeout_);
    std::string detail = sqlite3_errmsg(db_);
    int sys_errno = (rc & 0xff) == SQLITE_IOERR ? sqlite3_system_errno(db_) : 0;
    std::string text = why.empty() ? detail : fmt::format("{} ({})", why, detail);
    return Fail(fmt::format("{}: {}", path_, text), sys_errno);
  }

  Result<std::vector<SqlRow>> Query(std::string_view sql,
                                    const std::vector<SqlValue>& params) override {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
    if (rc != SQLITE_OK) return Failure(rc);
    struct Finalize {
      sqlite3_stmt* s;
      ~Finalize() { sqlite3_finalize(s); }
    } finalize{stmt};
    for (size_t i = 0; i < params.size(); ++i) {
      rc = Bind(stmt, static_cast<int>(i + 1), params[i]);
      if (rc != SQLITE_OK) return Failure(rc);
    }
    std::vector<SqlRow> rows;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) rows.push_back(Row(stmt));
    if (rc != SQLITE_DONE) return Failure(rc);
    return rows;
  }

  Result<std::vector<std::string>> Tables() override {
    auto rows = Query("SELECT name FROM sqlite_master WHERE type = 'table'", {});
    if (!rows) return tl::unexpected(rows.error());
    std::vector<std::string> names;
    for (const SqlRow& row : *rows) names.push_back(AsText(row[0]));
    return names;
  }

 private:
  static int Bind(sqlite3_stmt* stmt, int index, const SqlValue& v) {
    if (const auto* i = std::get_if<int64_t>(&v)) return sqlite3_bind_int64(stmt, index, *i);
    if (const auto* d = std::get_if<double>(&v)) return sqlite3_bind_double(stmt, index, *d);
    if (const auto* s = std::get_if<std::string>(&v)) {
      return sqlite3_bind_text64(stmt, index, s->data(), s->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    }
    return sqlite3_bind_null(stmt, index);
  }

  static SqlRow Row(sqlite3_stmt* stmt) {
    SqlRow row;
    const int n = sqlite3_column_count(stmt);
    row.reserve(n);
    for (int c = 0; c < n; ++c) {
      switch (sqlite3_column_type(stmt, c)) {
        case SQLITE_INTEGER:
          row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(stmt, c)));
          break;
        case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(stmt, c)); break;
        case SQLITE_NULL: row.emplace_back(std::monostate{}); break;
        default: {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
          row.emplace_back(std::string(text, sqlite3_column_bytes(stmt, c)));
        }
      }
    }
    return row;
  }

  sqlite3* db_;
  std::string path_;
  std::chrono::milliseconds busy_timeout_;
  Dialect dialect_;
};

// mkdir -p for the store's parent directories, private to the user.
Status MakeParents(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    std::string dir = path.substr(0, slash);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return FailErrno(fmt::format("{}: cannot create the store's directory {}", path, dir));
    }
  }
  return Ok();
}

// The settings every connection needs. Nothing is written before the file is known to be a
// nicbench store or empty: switching to WAL rewrites the database header, which another
// program's database must never see. The first read fails for a file that is not a database.
Status Configure(SqliteConnection& c, bool read_only) {
  if (auto s = c.Exec("SELECT count(*) FROM sqlite_master"); !s) return s;
  if (auto version = ReadSchemaVersion(c); !version) return tl::unexpected(version.error());
  if (!read_only) {
    if (auto s = c.ExecWhileBusy("PRAGMA journal_mode = WAL"); !s) return s;
    // In WAL mode NORMAL keeps the database consistent through a crash of the process or the
    // machine; a power loss may only lose the last commits.
    if (auto s = c.Exec("PRAGMA synchronous = NORMAL"); !s) return s;
  }
  return c.Exec("PRAGMA foreign_keys = ON");
}

// A reader that may not write the file cannot take WAL's shared-memory locks (the -shm file
// must be writable), so it opens the file as immutable: a snapshot without locks. Another user
// storing at that very moment could then be read half-way; a reader of someone else's store
// accepts that.
std::string ImmutableUri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '?' || c == '#' || c == '%') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

Result<std::unique_ptr<Connection>> OpenSqlite(const std::string& path, OpenMode mode,
                                               std::chrono::milliseconds busy_timeout) {
  if (path.empty()) return Fail("the store's file name is empty");
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return FailErrno(path + ": cannot reach the store");
  if (!exists && mode == OpenMode::kExisting) {
    return Fail(fmt::format("no result store at {} (no run stored there yet)", path));
  }
  if (exists && S_ISDIR(st.st_mode)) return Fail(fmt::format("{}: is a directory", path));
  if (!exists) {
    if (auto s = MakeParents(path); !s) return tl::unexpected(s.error());
  }
  // A reader of a file it may not write opens it read-only instead of failing.
  const bool read_only = exists && mode == OpenMode::kExisting && ::access(path.c_str(), W_OK) != 0;
  int flags = read_only ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI : SQLITE_OPEN_READWRITE;
  if (mode == OpenMode::kCreate) flags |= SQLITE_OPEN_CREATE;
  sqlite3* db = nullptr;
  const std::string name = read_only ? ImmutableUri(path) : path;
  int rc = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
  auto conn = std::make_unique<SqliteConnection>(db, path, busy_timeout);
  if (rc != SQLITE_OK) return conn->Failure(rc);
  sqlite3_extended_result_codes(db, 1);
  // SQLite checkpoints the WAL into the database when the last connection closes. Keeping the
  // WAL instead (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE) was measured slower: the next open must read
  // the whole WAL back to rebuild its index (3.5 ms of CPU per open against 0.3 ms; bench/).
  sqlite3_busy_timeout(db, static_cast<int>(busy_timeout.count()));
  if (auto s = Configure(*conn, read_only); !s) return tl::unexpected(s.error());
  return std::unique_ptr<Connection>(std::move(conn));
}

}  // namespace nicbench::store
