// A writer killed with SIGKILL at random points, 100 times, into one SQLite store: the database
// stays intact (PRAGMA integrity_check), every run a writer reported as stored reads back whole,
// and no half-written run is visible (every run has all its labels and a record that reads).
//
// The kill points are set by the writer's progress, not by the clock alone: the parent waits on
// the pipe until the writer has reported k stored runs (k random, 0 included), then kills it a
// random fraction of one Put later, the Put's duration measured in this build. A build or host
// ten times slower (the sanitizers, a busy CI machine) moves the kills with it.
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
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

using std::chrono::microseconds;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// A record big enough that storing it takes several pages: more places for a kill to land.
record::RunRecord BigRun(int writer, int i) {
  record::RunRecord run = record::testing::MakeTcpRun();
  for (int k = 0; k < 40; ++k) run.intervals.push_back(run.intervals[k % 2]);
  run.local.intervals = run.intervals;
  run.cookie = "w" + std::to_string(writer) + "-" + std::to_string(i);
  return run;
}

Labels RunLabels(int writer, int i) {
  return {{"writer", std::to_string(writer)}, {"i", std::to_string(i)}};
}

// The child: opens the store and stores runs until killed, writing each stored id to `fd`
// only after Put returned (so a reported id is a completed run). `hold_back` is a seam: the
// writer waits that long before it opens the store, as a slower build or a busier host makes it.
[[noreturn]] void Writer(const std::string& path, int writer, int fd, milliseconds hold_back) {
  if (hold_back.count() > 0) std::this_thread::sleep_for(hold_back);
  auto store = OpenStore(path);
  if (!store) _exit(3);
  for (int i = 0;; ++i) {
    auto id = (*store)->Put(BigRun(writer, i), RunLabels(writer, i));
    if (!id) _exit(4);
    int64_t value = *id;
    if (write(fd, &value, sizeof value) != sizeof value) _exit(5);
  }
}

// How long this build takes to create a store, and the longest of a few Puts into it.
struct StoreTimes {
  microseconds open{0};
  microseconds put{0};
};

StoreTimes MeasureStoreTimes(const std::string& path) {
  StoreTimes times;
  const auto t0 = Clock::now();
  auto store = OpenStore(path);
  EXPECT_TRUE(store.has_value()) << store.error().message;
  if (!store) return times;
  times.open = std::chrono::duration_cast<microseconds>(Clock::now() - t0);
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    EXPECT_TRUE((*store)->Put(BigRun(-1, i), RunLabels(-1, i)).has_value());
    times.put = std::max(times.put, std::chrono::duration_cast<microseconds>(Clock::now() - start));
  }
  return times;
}

// Reads one reported id from `fd`, waiting at most 60 s (a safety net: a writer that stored
// nothing in that long is hung, and the test says so). False at EOF (the writer died) or timeout.
bool ReadReported(int fd, int64_t* id, bool* timed_out) {
  pollfd p{fd, POLLIN, 0};
  int ready;
  do {
    ready = poll(&p, 1, 60000);
  } while (ready < 0 && errno == EINTR);
  *timed_out = ready == 0;
  return ready == 1 && read(fd, id, sizeof *id) == sizeof *id;
}

struct KillOutcome {
  std::map<int64_t, std::string> reported;  // id -> cookie
  size_t waited_for = 0;                    // the runs the parent waited for, summed over rounds
  int exited_early = 0;
  int hung = 0;
};

// `rounds` writers into `path`, each killed once it has reported k runs (k from 0 to 3) and a
// random fraction of one Put (of opening the store and one Put when k is 0) has passed.
KillOutcome KillWriters(const std::string& path, int rounds, unsigned seed, StoreTimes times,
                        milliseconds hold_back) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> runs_before_kill(0, 3);
  std::uniform_real_distribution<double> fraction(0.0, 1.0);
  KillOutcome out;
  for (int round = 0; round < rounds; ++round) {
    const int k = runs_before_kill(random);
    const auto window = k == 0 ? times.open + times.put : times.put;
    const auto delay = microseconds(static_cast<int64_t>(fraction(random) * window.count()));
    int fds[2];
    if (pipe(fds) != 0) ADD_FAILURE() << "pipe: " << errno;
    pid_t pid = fork();
    if (pid < 0) ADD_FAILURE() << "fork: " << errno;
    if (pid == 0) {
      close(fds[0]);
      Writer(path, round, fds[1], hold_back);
    }
    close(fds[1]);
    int i = 0;
    auto note = [&](int64_t id) {
      out.reported[id] = "w" + std::to_string(round) + "-" + std::to_string(i++);
    };
    int64_t id = 0;
    bool timed_out = false;
    while (i < k && ReadReported(fds[0], &id, &timed_out)) note(id);
    out.waited_for += static_cast<size_t>(i);
    out.hung += timed_out ? 1 : 0;
    // Not an ordering by time: the writer is inside its next Put (or opening the store) now,
    // and this picks how far into it the kill lands.
    std::this_thread::sleep_for(delay);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFSIGNALED(status)) ++out.exited_early;
    while (read(fds[0], &id, sizeof id) == sizeof id) note(id);
    close(fds[0]);
  }
  return out;
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

// The store at `path` is intact, holds no half-written run, and every reported run reads back
// with its own cookie. Returns the number of runs stored.
size_t ExpectOnlyWholeRuns(const std::string& path,
                           const std::map<int64_t, std::string>& reported) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
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
  EXPECT_TRUE(store.has_value()) << store.error().message;
  if (!store) return 0;
  auto all = (*store)->Find({});
  EXPECT_TRUE(all.has_value()) << all.error().message;
  if (!all) return 0;
  std::vector<int64_t> ids;
  for (const RunSummary& s : *all) ids.push_back(s.id);
  auto runs = (*store)->GetMany(ids);  // fails if any stored record does not read
  EXPECT_TRUE(runs.has_value()) << runs.error().message;
  if (!runs) return 0;
  std::map<int64_t, std::string> stored;
  for (const StoredRun& run : *runs) stored[run.summary.id] = run.record.cookie;
  for (const auto& [id, cookie] : reported) {
    auto it = stored.find(id);
    EXPECT_NE(it, stored.end()) << "run " << id << " was reported stored but is gone";
    if (it != stored.end()) {
      EXPECT_EQ(it->second, cookie) << "run " << id;
    }
  }
  // Killed between its commit and its report, a run may be stored without being reported.
  EXPECT_GE(stored.size(), reported.size());
  return stored.size();
}

TEST(SqliteKill, WritersKilledAtRandomPointsLeaveOnlyWholeRuns) {
  test::TempDir temp;
  const std::string path = temp.path() + "/killed.db";
  const unsigned seed = 20261130;
  const StoreTimes times = MeasureStoreTimes(temp.path() + "/measure.db");
  KillOutcome out = KillWriters(path, 100, seed, times, milliseconds(0));
  EXPECT_EQ(out.exited_early, 0) << "a writer failed on its own (exit codes 3..5), seed " << seed;
  EXPECT_EQ(out.hung, 0) << "a writer stored nothing for 60 s; seed " << seed;
  EXPECT_GE(out.reported.size(), out.waited_for) << "seed " << seed;
  ASSERT_GT(out.reported.size(), 0u) << "no writer ever stored a run; seed " << seed;
  const size_t stored = ExpectOnlyWholeRuns(path, out.reported);
  std::printf(
      "[ killed ] 100 writers; %zu runs reported, %zu stored; a Put takes %lld us, "
      "creating the store %lld us (seed %u)\n",
      out.reported.size(), stored, static_cast<long long>(times.put.count()),
      static_cast<long long>(times.open.count()), seed);
}

// Issue 34: the kills came after a random 0-60 ms whatever the writer had done; under the
// sanitizers a writer needed longer than that to open the store and finish one Put, and no round
// stored a run. A writer held back 200 ms (the seam) before it opens the store now still gets
// to the runs the parent waits for, and is killed inside a Put after them.
TEST(SqliteKill, AWriterHeldBackAtStartStillStoresTheRunsWaitedFor) {
  test::TempDir temp;
  const std::string path = temp.path() + "/held.db";
  const unsigned seed = 34;
  const StoreTimes times = MeasureStoreTimes(temp.path() + "/measure.db");
  KillOutcome out = KillWriters(path, 8, seed, times, milliseconds(200));
  EXPECT_EQ(out.exited_early, 0);
  EXPECT_EQ(out.hung, 0);
  // The symptom itself, whatever the schedule that led to it.
  ASSERT_GT(out.reported.size(), 0u) << "no writer ever stored a run; seed " << seed;
  ASSERT_GT(out.waited_for, 0u) << "seed " << seed << " drew k = 0 in every round";
  EXPECT_GE(out.reported.size(), out.waited_for);
  ExpectOnlyWholeRuns(path, out.reported);
}

}  // namespace
}  // namespace nicbench::store
