// Internal to store: the little a SQL database must offer for SqlStore, so the schema, the
// migrations and every query are written once for both backends. SQLite and libpq each implement
// Connection; SQL is written with `?` placeholders (PostgreSQL's connection numbers them) and the
// types in the DDL come from Dialect. Thread-compatible (one thread at a time per connection).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.h"

namespace nicbench::store {

// A parameter or a cell: NULL, an integer, a double or text. PostgreSQL returns every cell as
// text; the As* readers below convert.
using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;

bool IsNull(const SqlValue& v);
// REQUIRES: the value is of that type or text that parses as one (else 0 / "").
int64_t AsInt(const SqlValue& v);
double AsDouble(const SqlValue& v);
std::string AsText(const SqlValue& v);

// Type names and statements that differ between the two SQL dialects.
struct Dialect {
  std::string id_column;    // an auto-numbered 64-bit primary key column definition
  std::string integer;      // a 64-bit integer type
  std::string real;         // a double type
  std::string begin_write;  // starts a transaction that will write (takes the write lock now)
};

class Connection {
 public:
  virtual ~Connection() = default;
  virtual const Dialect& dialect() const = 0;
  // Runs one statement; its rows (empty for a statement that returns none).
  virtual Result<std::vector<SqlRow>> Query(std::string_view sql,
                                            const std::vector<SqlValue>& params = {}) = 0;
  // Serializes schema changes between processes for the length of the current transaction
  // (PostgreSQL: an advisory lock; SQLite: nothing, begin_write already holds the only write lock).
  virtual Status LockSchema() = 0;
  // Whether a table of this name exists.
  virtual Result<bool> HasTable(std::string_view name) = 0;
  // Whether the database holds tables that would make it another program's: SQLite, any table
  // (a store file is nicbench's alone); PostgreSQL, never (a shared database may hold other
  // programs' tables beside ours; only our own table names are checked).
  virtual Result<bool> HasOtherTables() = 0;
  // "sqlite:/path" or the URL without its password, for messages.
  virtual std::string Describe() const = 0;

  Status Exec(std::string_view sql, const std::vector<SqlValue>& params = {}) {
    auto rows = Query(sql, params);
    if (!rows) return tl::unexpected(rows.error());
    return Ok();
  }
};

// A transaction that rolls back unless committed.
class Transaction {
 public:
  explicit Transaction(Connection& c) : c_(c) {}
  ~Transaction() {
    if (open_) (void)c_.Exec("ROLLBACK");
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Status BeginWrite() {
    auto s = c_.Exec(c_.dialect().begin_write);
    open_ = s.has_value();
    return s;
  }
  Status Begin() {
    auto s = c_.Exec("BEGIN");
    open_ = s.has_value();
    return s;
  }
  // A failed COMMIT (busy, disk full) leaves the transaction open; the destructor rolls back.
  Status Commit() {
    auto s = c_.Exec("COMMIT");
    if (s) open_ = false;
    return s;
  }

 private:
  Connection& c_;
  bool open_ = false;
};

}  // namespace nicbench::store
