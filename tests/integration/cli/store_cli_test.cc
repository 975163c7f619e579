// The result store from the command line: `run` stores every run (loopback: both directions)
// where --store, NICBENCH_STORE, XDG_DATA_HOME or HOME say, `history` lists and filters them,
// `show` prints one again as it printed; bad input and a store that fails (not a database,
// locked, read-only, full) give clear errors and their exit codes. Runs are real loopback runs.
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "store/store_test_backends.h"
#include "support/run_binary.h"
#include "support/text.h"

namespace nicbench {
namespace {

using nlohmann::json;
using testing::ProcessResult;
using testing::RunNicbench;
using testing::RunProcess;

// Exit codes (base/exit_code.h, README).
constexpr int kUsage = 2, kStore = 4, kNotFound = 5;

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/nicbench-store-cli-XXXXXX";
    path_ = mkdtemp(pattern);
    chmod(path_.c_str(), 0755);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

bool Exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

// A short loopback run (forward and reverse) with these extra options.
ProcessResult QuickLoopback(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"run", "-t", "0.3", "-i", "0.1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunNicbench(args);
}

json History(const std::string& store, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"history", "--store", store, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult r = RunNicbench(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_TRUE(doc.is_object()) << r.out;
  return doc.is_object() ? doc["runs"] : json::array();
}

using testing::Lines;

TEST(StoreCli, LoopbackStoresBothDirectionsWithLabelsAndSaysTheIds) {
  TempDir dir;
  const std::string store = dir.path() + "/r.db";
  ProcessResult r = QuickLoopback({"--store", store, "--label", "nic=lo", "--label", "tso=on"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("nicbench: stored run 1 in sqlite:" + store), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nicbench: stored run 2 in sqlite:" + store), std::string::npos) << r.err;
  json runs = History(store);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["id"], 2);  // newest first
  EXPECT_EQ(runs[0]["direction"], "reverse");
  EXPECT_EQ(runs[1]["direction"], "forward");
  EXPECT_EQ(runs[1]["peer"], "127.0.0.1");
  EXPECT_EQ(runs[1]["protocol"], "tcp");
  EXPECT_EQ(runs[1]["labels"], json({{"nic", "lo"}, {"tso", "on"}}));
  EXPECT_GT(runs[1]["receiver_bits_per_second"].get<double>(), 0);
  EXPECT_FALSE(runs[1]["client_host"].get<std::string>().empty());
}

TEST(StoreCli, TheDefaultStoreFollowsTheEnvironment) {
  TempDir dir;
  // NICBENCH_STORE (the test support sets it for every child; here it is set explicitly).
  const std::string by_env = dir.path() + "/env.db";
  ProcessResult r = RunProcess(
      {"env", "NICBENCH_STORE=" + by_env, testing::NicbenchPath(), "run", "-t", "0.2", "-i", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(History(by_env).size(), 2u);
  // Then $XDG_DATA_HOME/nicbench/results.db, then ~/.local/share/nicbench/results.db.
  r = RunProcess({"env", "-u", "NICBENCH_STORE", "XDG_DATA_HOME=" + dir.path() + "/xdg",
                  testing::NicbenchPath(), "run", "-t", "0.2", "-i", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(History(dir.path() + "/xdg/nicbench/results.db").size(), 2u);
  r = RunProcess({"env", "-u", "NICBENCH_STORE", "-u", "XDG_DATA_HOME", "HOME=" + dir.path(),
                  testing::NicbenchPath(), "run", "-t", "0.2", "-i", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(History(dir.path() + "/.local/share/nicbench/results.db").size(), 2u);
}

TEST(StoreCli, NoStoreStoresNothing) {
  TempDir dir;
  const std::string store = dir.path() + "/r.db";
  ProcessResult r = RunProcess({"env", "NICBENCH_STORE=" + store, testing::NicbenchPath(), "run",
                                "-t", "0.2", "-i", "0", "--no-store"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("stored run"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(store));
}

TEST(StoreCli, BadStoreOptionsAreUsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--label", "tso"}, "label 'tso' has no '='"},
      {{"--label", "=on"}, "the key must be"},
      {{"--label", "a b=c"}, "the key may hold only"},
      {{"--label", "tso=on", "--label", "tso=off"}, "given twice"},
      {{"--no-store", "--store", "/tmp/x.db"}, "contradict"},
      {{"--no-store", "--label", "a=b"}, "--label needs a stored run"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = {"run"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = RunNicbench(argv);
    EXPECT_EQ(r.exit_code, kUsage) << args.front() << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos)
        << "expected '" << message << "' in " << r.err;
  }
}

// One value per --label: the host after it stays the host (regression: it was read as a label).
TEST(StoreCli, ALabelBeforeTheHostLeavesTheHostAlone) {
  testing::ServeChild server = testing::StartServe();
  TempDir dir;
  const std::string store = dir.path() + "/r.db";
  ProcessResult r = RunNicbench({"run", "--label", "tso=off", "127.0.0.1", "--label", "nic=lo",
                                 "-p", std::to_string(server.port), "-t", "0.2", "--store", store});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json runs = History(store, {"--label", "tso=off", "--label", "nic=lo"});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["peer"], "127.0.0.1");
}

// `show ID --json` is the document `run --json` printed; `show ID` is the text `run` printed.
TEST(StoreCli, ShowPrintsTheRunAgainAsItPrinted) {
  TempDir dir;
  const std::string store = dir.path() + "/r.db";
  testing::ServeChild server = testing::StartServe();
  const std::string port = std::to_string(server.port);
  ProcessResult run_json = RunNicbench({"run", "127.0.0.1", "-p", port, "-t", "0.3", "-i", "0.1",
                                        "-P", "2", "--json", "--store", store});
  ASSERT_EQ(run_json.exit_code, 0) << run_json.err;
  ProcessResult show_json = RunNicbench({"show", "1", "--json", "--store", store});
  ASSERT_EQ(show_json.exit_code, 0) << show_json.err;
  EXPECT_EQ(show_json.out, run_json.out);

  // Without samples the live lines cannot arrive late, so the text must match byte for byte.
  ProcessResult run_text = RunNicbench(
      {"run", "127.0.0.1", "-p", port, "-t", "0.3", "-i", "0.1", "--no-samples", "--store", store});
  ASSERT_EQ(run_text.exit_code, 0) << run_text.err;
  ProcessResult show_text = RunNicbench({"show", "2", "--store", store});
  ASSERT_EQ(show_text.exit_code, 0) << show_text.err;
  EXPECT_EQ(show_text.out, run_text.out);

  // With samples a server's sample may arrive after its interval printed (it then prints on a
  // line of its own, or not at all when it is the last): every line printed is in the replay,
  // which may only add the server's lines.
  ProcessResult sampled =
      RunNicbench({"run", "127.0.0.1", "-p", port, "-t", "0.3", "-i", "0.1", "--store", store});
  ASSERT_EQ(sampled.exit_code, 0) << sampled.err;
  ProcessResult show_sampled = RunNicbench({"show", "3", "--store", store});
  std::vector<std::string> a = Lines(sampled.out), b = Lines(show_sampled.out);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<std::string> missing, added;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(missing));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(added));
  EXPECT_TRUE(missing.empty()) << "run printed:\n"
                               << sampled.out << "show printed:\n"
                               << show_sampled.out;
  for (const std::string& line : added) {
    EXPECT_EQ(line.rfind("      remote  ", 0), 0u) << line;
  }
}

TEST(StoreCli, ShowCsvHasARowPerIntervalPerStreamPerEnd) {
  TempDir dir;
  const std::string store = dir.path() + "/r.db";
  testing::ServeChild server = testing::StartServe();
  ProcessResult r = RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "-t", "0.3",
                                 "-i", "0.1", "-P", "2", "--store", store});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ProcessResult doc = RunNicbench({"show", "1", "--json", "--store", store});
  const size_t intervals = json::parse(doc.out)["intervals"].size();
  ASSERT_GT(intervals, 0u);
  ProcessResult csv = RunNicbench({"show", "1", "--csv", "--store", store});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::vector<std::string> rows = Lines(csv.out);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0].rfind("run_id,end,role,interval_start,interval_end,", 0), 0u) << rows[0];
  EXPECT_EQ(rows.size(), 1 + intervals * 2 /*streams*/ * 2 /*ends*/) << csv.out;
  EXPECT_EQ(
      std::count_if(rows.begin(), rows.end(),
                    [](const std::string& row) { return row.rfind("1,remote,server,", 0) == 0; }),
      static_cast<long>(intervals * 2));
}

TEST(StoreCli, ShowErrorsHaveTheirExitCodes) {
  TempDir dir;
  const std::string store = dir.path() + "/r.db";
  ProcessResult missing = RunNicbench({"show", "1", "--store", store});
  EXPECT_EQ(missing.exit_code, kStore);
  EXPECT_NE(missing.err.find("no result store at " + store), std::string::npos) << missing.err;
  EXPECT_FALSE(Exists(store));  // a reader never creates one
  ASSERT_EQ(QuickLoopback({"--store", store}).exit_code, 0);
  ProcessResult unknown = RunNicbench({"show", "99", "--store", store});
  EXPECT_EQ(unknown.exit_code, kNotFound);
  EXPECT_NE(unknown.err.find("no run 99 in sqlite:" + store), std::string::npos) << unknown.err;
  for (const std::string bad : {"abc", "0", "-3", "1.5"}) {
    ProcessResult r = RunNicbench({"show", "--store", store, "--", bad});
    EXPECT_EQ(r.exit_code, kUsage) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("is not a run id"), std::string::npos) << r.err;
  }
  ProcessResult both = RunNicbench({"show", "1", "--json", "--csv", "--store", store});
  EXPECT_EQ(both.exit_code, kUsage);
  ProcessResult none = RunNicbench({"show", "--store", store});
  EXPECT_EQ(none.exit_code, kUsage);
}

TEST(StoreCli, HistoryFiltersAndFormats) {
  TempDir dir;
  const std::string store = dir.path() + "/r.db";
  ASSERT_EQ(QuickLoopback({"--store", store, "--label", "tso=on"}).exit_code, 0);  // runs 1, 2
  ASSERT_EQ(QuickLoopback({"--store", store, "--label", "tso=off", "--label", "nic=lo"}).exit_code,
            0);  // runs 3, 4
  EXPECT_EQ(History(store).size(), 4u);
  EXPECT_EQ(History(store, {"--label", "tso=off"}).size(), 2u);
  EXPECT_EQ(History(store, {"--label", "tso=off", "--label", "nic=lo"}).size(), 2u);
  EXPECT_EQ(History(store, {"--label", "tso=on", "--label", "nic=lo"}).size(), 0u);
  EXPECT_EQ(History(store, {"--peer", "127.0.0.1"}).size(), 4u);
  EXPECT_EQ(History(store, {"--peer", "10.9.9.9"}).size(), 0u);
  json last = History(store, {"--last", "1"});
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0]["id"], 4);
  EXPECT_EQ(History(store, {"--since", "2000-01-01"}).size(), 4u);
  EXPECT_EQ(History(store, {"--since", "1h"}).size(), 4u);
  EXPECT_EQ(History(store, {"--since", "2999-01-01 00:00"}).size(), 0u);

  ProcessResult text = RunNicbench({"history", "--store", store});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::vector<std::string> lines = Lines(text.out);
  ASSERT_EQ(lines.size(), 5u) << text.out;
  EXPECT_EQ(lines[0].find("ID  TIME (UTC)"), 0u) << lines[0];
  EXPECT_NE(lines[1].find("reverse"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("nic=lo tso=off"), std::string::npos) << lines[1];
  ProcessResult nothing = RunNicbench({"history", "--store", store, "--label", "tso=maybe"});
  EXPECT_EQ(nothing.out, "No stored runs match.\n");

  ProcessResult csv = RunNicbench({"history", "--store", store, "--csv"});
  ASSERT_EQ(csv.exit_code, 0);
  lines = Lines(csv.out);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0].rfind("id,time,client_host,server_host,peer,direction,", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("4,", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find(",nic=lo;tso=off"), std::string::npos) << lines[1];
}

TEST(StoreCli, HistoryRefusesBadInput) {
  TempDir dir;
  const std::string store = dir.path() + "/r.db";
  ASSERT_EQ(QuickLoopback({"--store", store}).exit_code, 0);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--since", "yesterday"}, "is not a date"},
      {{"--since", "2026-02-30"}, "is not a valid date"},
      {{"--since", "2026-13-01"}, "not a valid date"},
      {{"--last", "many"}, "--last"},
      {{"--label", "tso"}, "has no '='"},
      {{"--json", "--csv"}, "cannot be used together"},
      {{"--bogus"}, "bogus"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = {"history", "--store", store};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = RunNicbench(argv);
    EXPECT_EQ(r.exit_code, kUsage) << args.front() << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos)
        << "expected '" << message << "' in " << r.err;
  }
  ProcessResult missing = RunNicbench({"history", "--store", dir.path() + "/none.db"});
  EXPECT_EQ(missing.exit_code, kStore);
  EXPECT_NE(missing.err.find("no result store at"), std::string::npos);
}

// A store that cannot take the run is found before the test (no test time is lost): the error
// says why and that the test was not run, the exit code is the store's, and the file is left as
// it was.
TEST(StoreCli, AFileThatIsNotADatabaseFailsTheStoreNotTheTest) {
  TempDir dir;
  const std::string notes = dir.path() + "/notes.txt";
  std::ofstream(notes) << "these are my notes and not a database at all, keep them\n";
  ProcessResult r = QuickLoopback({"--store", notes});
  EXPECT_EQ(r.exit_code, kStore) << r.err;
  EXPECT_EQ(r.out.find("receiver"), std::string::npos) << "the test ran:\n" << r.out;
  EXPECT_NE(r.err.find("the test was not run"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a SQLite database"), std::string::npos) << r.err;
  std::ifstream in(notes);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "these are my notes and not a database at all, keep them\n");
}

TEST(StoreCli, AStoreLockedLongerThanTheBusyTimeoutFailsTheStore) {
  TempDir dir;
  const std::string store = dir.path() + "/r.db";
  ASSERT_EQ(QuickLoopback({"--store", store}).exit_code, 0);
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(store.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  ProcessResult r = RunProcess({"env", "NICBENCH_STORE_TIMEOUT_MS=200", testing::NicbenchPath(),
                                "run", "-t", "0.2", "-i", "0", "--store", store});
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(r.exit_code, kStore) << r.err;
  EXPECT_NE(r.err.find("locked by another writer (still busy after 200 ms)"), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("receiver"), std::string::npos);
  EXPECT_EQ(History(store).size(), 2u);  // the earlier runs are intact
}

TEST(StoreCli, AStoreTheUserMayNotWriteFailsTheStore) {
  TempDir dir;
  const std::string store = dir.path() + "/r.db";
  ASSERT_EQ(QuickLoopback({"--store", store}).exit_code, 0);
  std::vector<std::string> argv;
  if (testing::IsRoot()) {
    // Root writes anything: run as nobody against root's 0644 file in root's 0755 directory.
    if (!testing::HaveProgram("setpriv")) GTEST_SKIP() << "setpriv (util-linux) is not installed";
    argv = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"};
  } else {
    chmod(store.c_str(), 0444);
    chmod(dir.path().c_str(), 0555);
  }
  std::vector<std::string> history = argv;
  argv.insert(argv.end(),
              {testing::NicbenchPath(), "run", "-t", "0.2", "-i", "0", "--store", store});
  ProcessResult r = RunProcess(argv);
  // Reading someone else's store works without write permission.
  history.insert(history.end(), {testing::NicbenchPath(), "history", "--store", store, "--json"});
  ProcessResult read = RunProcess(history);
  chmod(dir.path().c_str(), 0755);
  EXPECT_EQ(r.exit_code, kStore) << r.err;
  EXPECT_NE(r.err.find("the store is read-only"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the test was not run"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("receiver"), std::string::npos) << r.out;
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_EQ(json::parse(read.out)["runs"].size(), 2u);
  EXPECT_EQ(History(store).size(), 2u);
}

TEST(StoreCli, AFullDiskFailsTheStore) {
  if (!testing::IsRoot()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  TempDir dir;
  // A private mount namespace with a 64 KiB tmpfs: too small for the store's schema, which is
  // written when the store is opened, before the test.
  const std::string script = "mount -t tmpfs -o size=64k tmpfs " + dir.path() + " && exec " +
                             testing::NicbenchPath() + " run -t 0.2 -i 0.1 --store " + dir.path() +
                             "/r.db";
  ProcessResult r =
      RunProcess({"unshare", "--mount", "--propagation", "private", "sh", "-c", script});
  if (r.err.find("mount:") != std::string::npos || r.err.find("unshare:") != std::string::npos) {
    GTEST_SKIP() << "cannot mount a tmpfs here: " << r.err;
  }
  EXPECT_EQ(r.exit_code, kStore) << r.err;
  EXPECT_NE(r.err.find("the disk is full"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the test was not run"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("receiver"), std::string::npos) << r.out;
}

const auto* const kPostgresEnvironment =
    ::testing::AddGlobalTestEnvironment(new store::test::PostgresEnvironment);

// The same commands against a real PostgreSQL server (started by the test).
TEST(StoreCliPostgres, RunHistoryAndShowWithAPostgresqlUrl) {
  const std::string& why = store::test::TestPostgres::Instance().Ensure();
  if (!why.empty()) GTEST_SKIP() << "PostgreSQL skipped: " << why;
  const std::string url = store::test::TestPostgres::Instance().FreshDatabase();
  ProcessResult r = QuickLoopback({"--store", url, "--label", "team=net"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("nicbench: stored run 2 in " + url), std::string::npos) << r.err;
  json runs = History(url, {"--label", "team=net"});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["direction"], "reverse");
  ProcessResult show = RunNicbench({"show", "1", "--json", "--store", url});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(json::parse(show.out)["start"]["test_start"]["protocol"], "TCP");
  ProcessResult unknown = RunNicbench({"show", "7", "--store", url});
  EXPECT_EQ(unknown.exit_code, kNotFound);
}

TEST(StoreCliPostgres, AnUnreachableServerFailsTheStoreAndHidesThePassword) {
  if (!store::HavePostgres()) GTEST_SKIP() << "built without PostgreSQL";
  const std::string url =
      "postgresql://ann:s3cret@127.0.0.1:" + std::to_string(testing::FreeTcpPort()) + "/results";
  ProcessResult r = QuickLoopback({"--store", url});
  EXPECT_EQ(r.exit_code, kStore) << r.err;
  EXPECT_NE(r.err.find("postgresql://ann:***@127.0.0.1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot connect"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("s3cret"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the test was not run"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("receiver"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace nicbench
