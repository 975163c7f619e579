// A writer killed with SIGKILL at random points, 100 times, into one SQLite store: the database
// stays intact (PRAGMA integrity_check), every run a writer reported as stored reads back whole,
// and no half-written run is visible (every run has all its labels and a record that reads).
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "record/json_test_records.h"
#include "store/store.h"
#include "store/store_test_backends.h"

namespace nicbench::store {
namespace {

// A record big enough that storing it takes several pages: more places for a kill to land.
record::RunRecord BigRun(int writer, int i) {
  record::RunRecord run = record::testing::MakeTcpRun();
  for (int k = 0; k < 40; ++k) run.intervals.push_back(run.intervals[k % 2]);
  run.local.intervals = run.intervals;
  run.cookie = "w" + std::to_string(writer) + "-" + std::to_string(i);
  return run;
}

// The child: opens the store and stores runs until killed, writing each stored id to `fd`
// only after Put returned (so a reported id is a completed run).
[[noreturn]] void Writer(const std::string& path, int writer, int fd) {
  auto store = OpenStore(path);
  if (!store) _exit(3);
  for (int i = 0;; ++i) {
    const Labels labels = {{"writer", std::to_string(writer)}, {"i", std::to_string(i)}};
    auto id = (*store)->Put(BigRun(writer, i), labels);
    if (!id) _exit(4);
    int64_t value = *id;
    if (write(fd, &value, sizeof value) != sizeof value) _exit(5);
  }
}

std::string Scalar(sqlite3* db, const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  std::string out = "(prepare failed)";
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  return out;
}

TEST(SqliteKill, WritersKilledAtRandomPointsLeaveOnlyWholeRuns) {
  test::TempDir temp;
  const std::string path = temp.path() + "/killed.db";
  const unsigned seed = 20261130;
  std::mt19937 random(seed);
  // Up to 60 ms: the first kills land in creating the store, later ones inside Puts.
  std::uniform_int_distribution<int> delay_us(0, 60000);
  std::map<int64_t, std::string> reported;  // id -> cookie
  int exited_early = 0;
  for (int round = 0; round < 100; ++round) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      Writer(path, round, fds[1]);
    }
    close(fds[1]);
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(random)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFSIGNALED(status)) ++exited_early;
    int64_t id = 0;
    for (int i = 0; read(fds[0], &id, sizeof id) == sizeof id; ++i) {
      reported[id] = "w" + std::to_string(round) + "-" + std::to_string(i);
    }
    close(fds[0]);
  }
  EXPECT_EQ(exited_early, 0) << "a writer failed on its own (exit codes 3..5), seed " << seed;
  ASSERT_GT(reported.size(), 0u) << "no writer ever stored a run; seed " << seed;

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(Scalar(db, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(Scalar(db,
                   "SELECT count(*) FROM runs WHERE id NOT IN (SELECT run_id FROM run_labels "
                   "GROUP BY run_id HAVING count(*) = 2)"),
            "0")
      << "a run without its two labels is half written";
  EXPECT_EQ(
      Scalar(db, "SELECT count(*) FROM runs WHERE id NOT IN (SELECT run_id FROM run_records)"), "0")
      << "a run without its record is half written";
  sqlite3_close(db);

  auto store = OpenStore(path);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  auto all = (*store)->Find({});
  ASSERT_TRUE(all.has_value()) << all.error().message;
  std::vector<int64_t> ids;
  for (const RunSummary& s : *all) ids.push_back(s.id);
  auto runs = (*store)->GetMany(ids);  // fails if any stored record does not read
  ASSERT_TRUE(runs.has_value()) << runs.error().message;
  std::map<int64_t, std::string> stored;
  for (const StoredRun& run : *runs) stored[run.summary.id] = run.record.cookie;
  for (const auto& [id, cookie] : reported) {
    auto it = stored.find(id);
    ASSERT_NE(it, stored.end()) << "run " << id << " was reported stored but is gone";
    EXPECT_EQ(it->second, cookie) << "run " << id;
  }
  // Killed between its commit and its report, a run may be stored without being reported.
  EXPECT_GE(stored.size(), reported.size());
  std::printf("[ killed ] 100 writers; %zu runs reported, %zu stored (seed %u)\n", reported.size(),
              stored.size(), seed);
}

}  // namespace
}  // namespace nicbench::store
