// What only a SQLite file can get wrong: files that are not ours, older and newer schemas, a
// lock held too long, the default location.
#include <sqlite3.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "record/json.h"
#include "record/json_test_records.h"
#include "store/backends.h"
#include "store/sql_store.h"
#include "store/store.h"
#include "store/store_test_backends.h"
#include "support/text.h"

namespace nicbench::store {
namespace {

using record::testing::MakeTcpRun;

void Sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

class SqliteStoreTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return temp_.path() + "/" + name; }
  test::TempDir temp_;
};

TEST_F(SqliteStoreTest, AFileThatIsNotADatabaseIsRefusedAndLeftUntouched) {
  const std::string path = Path("notes.txt");
  std::ofstream(path) << "my precious notes, not a database, long enough to have a header\n";
  const std::string before = testing::FileText(path);
  auto store = OpenStore(path);
  ASSERT_FALSE(store.has_value());
  EXPECT_NE(store.error().message.find("not a SQLite database"), std::string::npos)
      << store.error().message;
  EXPECT_NE(store.error().message.find(path), std::string::npos);
  EXPECT_TRUE(testing::FileText(path) == before) << "the file was changed";
}

TEST_F(SqliteStoreTest, AnotherProgramsDatabaseIsRefusedAndLeftUntouched) {
  const std::string path = Path("other.db");
  Sql(path, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ann');");
  const std::string before = testing::FileText(path);
  auto store = OpenStore(path);
  ASSERT_FALSE(store.has_value());
  EXPECT_NE(store.error().message.find("another program"), std::string::npos)
      << store.error().message;
  EXPECT_TRUE(testing::FileText(path) == before) << "the file was changed";
}

TEST_F(SqliteStoreTest, ATableNamedLikeOursButNotOursIsRefused) {
  const std::string path = Path("runs.db");
  Sql(path, "CREATE TABLE runs (x INTEGER);");
  auto store = OpenStore(path);
  ASSERT_FALSE(store.has_value());
  EXPECT_NE(store.error().message.find("not nicbench's"), std::string::npos)
      << store.error().message;
}

TEST_F(SqliteStoreTest, AnEmptyFileBecomesAStore) {
  const std::string path = Path("empty.db");
  std::ofstream{path};
  auto store = OpenStore(path);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  EXPECT_TRUE((*store)->Put(MakeTcpRun(), {}).has_value());
}

TEST_F(SqliteStoreTest, AWriterLockedOutLongerThanTheBusyTimeoutFailsClearly) {
  const std::string path = Path("locked.db");
  ASSERT_TRUE(OpenStore(path).has_value());
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto store = OpenStore(path, OpenMode::kCreate, std::chrono::milliseconds(50));
  ASSERT_TRUE(store.has_value()) << store.error().message;
  auto id = (*store)->Put(MakeTcpRun(), {});
  ASSERT_FALSE(id.has_value());
  EXPECT_NE(id.error().message.find("locked by another writer (still busy after 50 ms)"),
            std::string::npos)
      << id.error().message;
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_TRUE((*store)->Put(MakeTcpRun(), {}).has_value());
}

TEST_F(SqliteStoreTest, ReadersNeedAnExistingStore) {
  auto store = OpenStore(Path("nothing-here.db"), OpenMode::kExisting);
  ASSERT_FALSE(store.has_value());
  EXPECT_NE(store.error().message.find("no result store at"), std::string::npos);
  struct stat st {};
  EXPECT_NE(stat(Path("nothing-here.db").c_str(), &st), 0);  // and none was made
}

TEST_F(SqliteStoreTest, ADirectoryIsNotAStore) {
  auto store = OpenStore(temp_.path());
  ASSERT_FALSE(store.has_value());
  EXPECT_NE(store.error().message.find("is a directory"), std::string::npos);
}

TEST_F(SqliteStoreTest, TheStoreIsInWalMode) {
  const std::string path = Path("wal.db");
  auto store = OpenStore(path);
  ASSERT_TRUE(store.has_value());
  auto c = OpenSqlite(path, OpenMode::kExisting, std::chrono::seconds(1));
  ASSERT_TRUE(c.has_value());
  auto mode = (*c)->Query("PRAGMA journal_mode");
  ASSERT_TRUE(mode.has_value());
  EXPECT_EQ(AsText((*mode)[0][0]), "wal");
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(StoreLocation, EnvironmentThenXdgThenHome) {
  ScopedEnv home("HOME", "/home/ann");
  {
    ScopedEnv store("NICBENCH_STORE", "/data/r.db");
    ScopedEnv xdg("XDG_DATA_HOME", "/xdg");
    EXPECT_EQ(DefaultLocation().value_or(""), "/data/r.db");
  }
  {
    ScopedEnv store("NICBENCH_STORE", "");  // empty is unset
    ScopedEnv xdg("XDG_DATA_HOME", "/xdg");
    EXPECT_EQ(DefaultLocation().value_or(""), "/xdg/nicbench/results.db");
  }
  ScopedEnv store("NICBENCH_STORE", nullptr);
  ScopedEnv xdg("XDG_DATA_HOME", nullptr);
  EXPECT_EQ(DefaultLocation().value_or(""), "/home/ann/.local/share/nicbench/results.db");
  ScopedEnv no_home("HOME", nullptr);
  EXPECT_FALSE(DefaultLocation().has_value());
}

TEST(StoreLocation, PostgresUrlsAndRedaction) {
  EXPECT_TRUE(IsPostgresUrl("postgresql://u@h/db"));
  EXPECT_TRUE(IsPostgresUrl("postgres://h/db"));
  EXPECT_FALSE(IsPostgresUrl("/var/lib/postgres/x.db"));
  EXPECT_EQ(RedactUrl("postgresql://ann:s3cret@db.example/results"),
            "postgresql://ann:***@db.example/results");
  EXPECT_EQ(RedactUrl("postgresql://ann@db/r?password=s3cret&sslmode=require"),
            "postgresql://ann@db/r?password=***&sslmode=require");
  EXPECT_EQ(RedactUrl("postgresql://db/r"), "postgresql://db/r");
}

TEST(StoreLabels, KeyEqualsValue) {
  auto ok = ParseLabel("tso=off");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->first, "tso");
  EXPECT_EQ(ok->second, "off");
  EXPECT_EQ(ParseLabel("note=a=b").value().second, "a=b");  // the first '=' splits
  EXPECT_EQ(ParseLabel("empty=").value().second, "");
  auto no_eq = ParseLabel("tso");
  ASSERT_FALSE(no_eq.has_value());
  EXPECT_NE(no_eq.error().message.find("has no '='"), std::string::npos);
  EXPECT_FALSE(ParseLabel("=off").has_value());
  EXPECT_FALSE(ParseLabel("t so=off").has_value());
  EXPECT_FALSE(ParseLabel(std::string(65, 'k') + "=v").has_value());
}

}  // namespace
}  // namespace nicbench::store
