// The fleet from the command line (docs/fleet.md), as real processes against a real PostgreSQL
// server the test starts (store_test_backends.h): `nicbench serve` and `nicbench agent` for two
// hosts on 127.0.0.2 and 127.0.0.3, a mesh both ways completed and shown in the grid; an agent
// killed with SIGKILL mid-test whose job runs again after the lease and is stored once; one
// stopped with SIGTERM mid-test hands its job back at once; a job
// whose options fail the run's checks marked failed, never run; bad input with clear errors and
// exit codes.
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "store/fleet.h"
#include "store/store.h"
#include "store/store_test_backends.h"
#include "support/http.h"
#include "support/run_binary.h"
#include "support/wait.h"

namespace nicbench {
namespace {

using testing::BackgroundProcess;
using testing::ProcessResult;
using testing::RunNicbench;

const auto* const kFleetPostgres =
    ::testing::AddGlobalTestEnvironment(new store::test::PostgresEnvironment);

constexpr int kFleetUsage = 2, kFleetStore = 4;

class FleetCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string& why = store::test::TestPostgres::Instance().Ensure();
    if (!why.empty()) GTEST_SKIP() << "PostgreSQL fleet tests skipped: " << why;
    url_ = store::test::TestPostgres::Instance().FreshDatabase();
    port_ = testing::FreeTcpPort();
  }
  void TearDown() override {
    for (auto& p : agents_) p->Stop();
    for (auto& p : servers_) p->Stop();
  }

  // `nicbench serve` and `nicbench agent --name NAME` of a host at ADDRESS (127.0.0.N).
  BackgroundProcess& StartHost(const std::string& name, const std::string& address,
                               const std::vector<std::string>& extra = {}) {
    if (servers_.size() < 4 && !served_.count(address)) {
      served_.insert(address);
      servers_.push_back(std::make_unique<BackgroundProcess>(std::vector<std::string>{
          testing::NicbenchPath(), "serve", "-p", std::to_string(port_), "-B", address}));
      EXPECT_TRUE(servers_.back()->WaitForOutput("serving on port"))
          << servers_.back()->StderrSoFar();
    }
    std::vector<std::string> argv = {testing::NicbenchPath(),
                                     "agent",
                                     "--name",
                                     name,
                                     "--address",
                                     address,
                                     "--store",
                                     url_,
                                     "--poll",
                                     "100ms",
                                     "--heartbeat",
                                     "500ms"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    agents_.push_back(std::make_unique<BackgroundProcess>(argv));
    return *agents_.back();
  }

  bool Registered(const std::vector<std::string>& names) {
    return testing::WaitUntil([&] {
      auto fleet = store::Fleet::Open(url_);
      if (!fleet) return false;
      auto hosts = (*fleet)->Hosts();
      return hosts && hosts->size() >= names.size();
    });
  }

  std::vector<store::FleetJob> Jobs(const std::string& mesh) {
    auto fleet = store::Fleet::Open(url_);
    if (!fleet) return {};
    auto m = (*fleet)->FindMesh(mesh);
    if (!m || !*m) return {};
    auto jobs = (*fleet)->Jobs((*m)->id);
    return jobs ? *jobs : std::vector<store::FleetJob>();
  }

  bool AllEnded(const std::string& mesh, size_t count) {
    return testing::WaitUntil(
        [&] {
          auto jobs = Jobs(mesh);
          if (jobs.size() < count) return false;
          for (const auto& j : jobs) {
            if (j.state == store::kJobQueued || j.state == store::kJobRunning) return false;
          }
          return true;
        },
        std::chrono::seconds(120), std::chrono::milliseconds(100));
  }

  // A mesh "once" of the one pair a -> b with a test of `seconds`, its job running.
  bool OneJobRunning(const std::string& seconds) {
    if (RunNicbench(
            {"mesh", "create", "once", "--hosts", "a,b", "--test", Test(seconds), "--store", url_})
            .exit_code != 0) {
      return false;
    }
    return testing::WaitUntil([&] {
      auto jobs = Jobs("once");
      return !jobs.empty() && jobs[0].state == store::kJobRunning;
    });
  }

  // The runs stored for fleet job `id`, incomplete ones included; -1 when the store is unread.
  int64_t StoredRuns(int64_t id) {
    auto store = store::OpenStore(url_, store::OpenMode::kExisting);
    if (!store) return -1;
    store::RunQuery q;
    q.labels["fleet_job"] = std::to_string(id);
    q.include_incomplete = true;
    auto runs = (*store)->Find(q);
    return runs ? static_cast<int64_t>(runs->size()) : -1;
  }

  std::string Test(const std::string& seconds) {
    return "-t " + seconds + " -p " + std::to_string(port_);
  }

  std::string url_;
  int port_ = 0;
  std::set<std::string> served_;
  std::vector<std::unique_ptr<BackgroundProcess>> servers_, agents_;
};

TEST_F(FleetCli, TwoAgentsRunAMeshBothWaysAndTheGridShowsIt) {
  StartHost("a", "127.0.0.2");
  StartHost("b", "127.0.0.3");
  ASSERT_TRUE(Registered({"a", "b"}));
  ProcessResult create = RunNicbench({"mesh", "create", "pair", "--hosts", "a,b", "--every", "1h",
                                      "--test", Test("1"), "--both-directions", "--store", url_});
  ASSERT_EQ(create.exit_code, 0) << create.err;
  ASSERT_TRUE(AllEnded("pair", 2));
  for (const auto& j : Jobs("pair")) EXPECT_EQ(j.state, store::kJobDone) << j.error;
  ProcessResult grid = RunNicbench({"mesh", "grid", "pair", "--json", "--store", url_});
  ASSERT_EQ(grid.exit_code, 0) << grid.err;
  auto doc = nlohmann::json::parse(grid.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << grid.out;
  ASSERT_EQ(doc["cells"].size(), 2u);
  for (const auto& cell : doc["cells"]) {
    EXPECT_EQ(cell["state"], "ok") << cell.dump();
    EXPECT_GT(cell["bits_per_second"].get<double>(), 0) << cell.dump();
    EXPECT_TRUE(cell["run_id"].is_number());
  }
  // The runs are ordinary stored runs.
  ProcessResult history =
      RunNicbench({"history", "--json", "--label", "fleet_sender=a", "--store", url_});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_EQ(nlohmann::json::parse(history.out)["runs"].size(), 1u);
  ProcessResult text = RunNicbench({"mesh", "grid", "pair", "--store", url_});
  EXPECT_NE(text.out.find("mesh pair"), std::string::npos) << text.out;
  ProcessResult list = RunNicbench({"mesh", "list", "--json", "--store", url_});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(nlohmann::json::parse(list.out)["meshes"][0]["pairs"], 2);
}

TEST_F(FleetCli, KilledAgentsJobRunsAgainAfterTheLeaseAndIsStoredOnce) {
  const std::vector<std::string> lease = {"--lease", "2s"};
  BackgroundProcess& doomed = StartHost("a", "127.0.0.2", lease);
  StartHost("b", "127.0.0.3", lease);
  ASSERT_TRUE(Registered({"a", "b"}));
  ASSERT_TRUE(OneJobRunning("3"));
  kill(doomed.pid(), SIGKILL);
  doomed.Stop(0);
  StartHost("a", "127.0.0.2", lease);
  ASSERT_TRUE(AllEnded("once", 1));
  auto jobs = Jobs("once");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state, store::kJobDone) << jobs[0].error;
  EXPECT_EQ(jobs[0].attempts, 2);
  EXPECT_EQ(StoredRuns(jobs[0].id), 1);
}

// systemctl stop or a pod's end: SIGTERM mid-test hands the job back at once (no lease to wait
// for, and no failure recorded for a test that was only cut short); the next start runs it.
TEST_F(FleetCli, AgentStoppedMidTestHandsItsJobBackAndItRunsOnce) {
  const std::vector<std::string> lease = {"--lease", "60s"};
  BackgroundProcess& stopping = StartHost("a", "127.0.0.2", lease);
  StartHost("b", "127.0.0.3", lease);
  ASSERT_TRUE(Registered({"a", "b"}));
  ASSERT_TRUE(OneJobRunning("4"));
  ProcessResult stopped = stopping.Stop(SIGTERM);
  EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
  auto jobs = Jobs("once");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state, store::kJobQueued) << jobs[0].error;
  EXPECT_NE(jobs[0].error.find("agent a stopped during the test"), std::string::npos)
      << jobs[0].error;
  StartHost("a", "127.0.0.2", lease);
  ASSERT_TRUE(AllEnded("once", 1));
  jobs = Jobs("once");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state, store::kJobDone) << jobs[0].error;
  EXPECT_EQ(jobs[0].attempts, 2);
  auto fleet = store::Fleet::Open(url_);
  ASSERT_TRUE(fleet.has_value());
  auto attempts = (*fleet)->Attempts(jobs[0].mesh_id);
  ASSERT_TRUE(attempts.has_value());
  ASSERT_EQ(attempts->size(), 2u);
  EXPECT_EQ(attempts->at(0).outcome, "released");
  EXPECT_EQ(StoredRuns(jobs[0].id), 1);  // the cut-short run is not stored either
}

// The mesh grid panel of the Grafana dashboard (deploy/grafana), its query read from the
// dashboard, answered by a real Prometheus scraping two real agents after a mesh both ways:
// one series per ordered pair, labelled as the panel lays them out, with the goodput.
TEST_F(FleetCli, GrafanaGridPanelQueryAnswersEveryPairFromAScrapedAgent) {
  if (!testing::HaveProgram("prometheus")) {
    GTEST_SKIP() << "prometheus is not installed (scripts/install-deps installs it): the grid "
                    "panel's query is not checked against a real server";
  }
  const std::vector<std::string> metrics = {"--metrics-listen", "127.0.0.1:0"};
  BackgroundProcess& a = StartHost("a", "127.0.0.2", metrics);
  BackgroundProcess& b = StartHost("b", "127.0.0.3", metrics);
  const std::vector<int> ports = {testing::MetricsPort(a), testing::MetricsPort(b)};
  ASSERT_GT(ports[0], 0) << a.StderrSoFar();
  ASSERT_GT(ports[1], 0) << b.StderrSoFar();
  ASSERT_TRUE(Registered({"a", "b"}));
  ASSERT_EQ(RunNicbench({"mesh", "create", "pair", "--hosts", "a,b", "--test", Test("1"),
                         "--both-directions", "--store", url_})
                .exit_code,
            0);
  ASSERT_TRUE(AllEnded("pair", 2));

  std::ifstream in(testing::SourceDir() + "/deploy/grafana/nicbench-monitor.json");
  ASSERT_TRUE(in) << "deploy/grafana/nicbench-monitor.json";
  const nlohmann::json dashboard = nlohmann::json::parse(in);
  std::string query;
  for (const auto& panel : dashboard["panels"]) {
    for (const auto& target : panel["targets"]) {
      const std::string expr = target["expr"];
      if (expr.find("nicbench_agent_last_goodput") != std::string::npos) query = expr;
    }
  }
  ASSERT_FALSE(query.empty()) << "no grid panel over nicbench_agent_last_goodput";

  const std::string dir = std::filesystem::temp_directory_path() /
                          ("nicbench-fleet-prometheus-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  nlohmann::json result;
  {
    testing::RealPrometheus prometheus(dir, ports);
    ASSERT_TRUE(prometheus.Listening()) << prometheus.StderrSoFar();
    const bool answered = testing::WaitUntil([&] {
      auto doc = nlohmann::json::parse(prometheus.Query(query), nullptr, false);
      if (!doc.is_object() || !doc["data"]["result"].is_array()) return false;
      result = doc["data"]["result"];
      return result.size() == 2;
    });
    EXPECT_TRUE(answered) << query << ": " << result.dump() << prometheus.StderrSoFar();
  }
  std::filesystem::remove_all(dir);
  std::set<std::string> pairs;
  for (const auto& series : result) {
    pairs.insert(series["metric"].value("sender", "?") + "->" +
                 series["metric"].value("receiver", "?"));
    EXPECT_GT(std::stod(series["value"][1].get<std::string>()), 0) << series.dump();
  }
  EXPECT_EQ(pairs, (std::set<std::string>{"a->b", "b->a"}));
}

TEST_F(FleetCli, JobWithOptionsRunRefusesIsFailedNeverRun) {
  StartHost("a", "127.0.0.2");
  StartHost("b", "127.0.0.3");
  ASSERT_TRUE(Registered({"a", "b"}));
  // A row someone else wrote, past mesh create's checks.
  auto fleet = store::Fleet::Open(url_);
  ASSERT_TRUE(fleet.has_value());
  store::MeshSpec spec;
  spec.name = "rogue";
  spec.hosts = {"a", "b"};
  spec.pairs = {{"a", "b"}};
  spec.test = {"-t", "1", "-P", "100000", "-p", std::to_string(port_)};
  ASSERT_TRUE((*fleet)->CreateMesh(spec, 0).has_value());
  ASSERT_TRUE(AllEnded("rogue", 1));
  auto jobs = Jobs("rogue");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state, store::kJobFailed);
  EXPECT_NE(jobs[0].error.find("refused"), std::string::npos) << jobs[0].error;
  EXPECT_EQ(jobs[0].attempts, 1);
  EXPECT_FALSE(jobs[0].run_id.has_value());
}

TEST_F(FleetCli, BadInputGivesClearErrorsAndExitCodes) {
  StartHost("a", "127.0.0.2");
  ASSERT_TRUE(Registered({"a"}));
  ProcessResult unknown = RunNicbench({"mesh", "create", "m", "--hosts", "a,nas", "--store", url_});
  EXPECT_EQ(unknown.exit_code, kFleetUsage);
  EXPECT_NE(unknown.err.find("unknown host 'nas'"), std::string::npos) << unknown.err;
  ProcessResult short_period = RunNicbench({"mesh", "create", "m", "--hosts", "a,b", "--every",
                                            "5s", "--test", "-t 10", "--store", url_});
  EXPECT_EQ(short_period.exit_code, kFleetUsage);
  EXPECT_NE(short_period.err.find("not longer than the test"), std::string::npos)
      << short_period.err;
  const std::string file = std::filesystem::temp_directory_path() /
                           ("nicbench-mesh-" + std::to_string(getpid()) + ".json");
  std::ofstream(file) << R"({"hosts": ["a", "b"], "evry": "1h"})";
  ProcessResult member = RunNicbench({"mesh", "create", "m", "--from", file, "--store", url_});
  EXPECT_EQ(member.exit_code, kFleetUsage);
  EXPECT_NE(member.err.find("unknown member 'evry'"), std::string::npos) << member.err;
  std::ofstream(file) << R"({"hosts": ["a", "b"],)";
  ProcessResult malformed = RunNicbench({"mesh", "create", "m", "--from", file, "--store", url_});
  EXPECT_EQ(malformed.exit_code, kFleetUsage);
  EXPECT_NE(malformed.err.find("not JSON"), std::string::npos) << malformed.err;
  std::filesystem::remove(file);
  ProcessResult reverse =
      RunNicbench({"mesh", "create", "m", "--hosts", "a,b", "--test", "-t 1 -R", "--store", url_});
  EXPECT_EQ(reverse.exit_code, kFleetUsage);
  EXPECT_NE(reverse.err.find("sender to receiver"), std::string::npos) << reverse.err;
  ProcessResult password =
      RunNicbench({"mesh", "list", "--store", "postgresql://u:secret@127.0.0.1:1/db"});
  EXPECT_EQ(password.exit_code, kFleetUsage);
  EXPECT_NE(password.err.find("ps"), std::string::npos) << password.err;
  EXPECT_EQ(password.err.find("secret"), std::string::npos) << password.err;
  ProcessResult down = RunNicbench(
      {"mesh", "list", "--store",
       "postgresql://nicbench@127.0.0.1:" + std::to_string(testing::FreeTcpPort()) + "/none"});
  EXPECT_EQ(down.exit_code, kFleetStore);
  EXPECT_NE(down.err.find("cannot connect"), std::string::npos) << down.err;
  ProcessResult agent = RunNicbench({"agent", "--store", "/tmp/x.db"});
  EXPECT_EQ(agent.exit_code, kFleetUsage);
  EXPECT_NE(agent.err.find("PostgreSQL"), std::string::npos) << agent.err;
  ProcessResult missing = RunNicbench({"mesh", "grid", "nothing", "--store", url_});
  EXPECT_EQ(missing.exit_code, 5);
}

TEST_F(FleetCli, StoreMigrateCreatesTheSchemaOnce) {
  ProcessResult first = RunNicbench({"store", "migrate", "--store", url_});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("schema version " + std::to_string(store::kSchemaVersion)),
            std::string::npos)
      << first.out;
  EXPECT_EQ(RunNicbench({"store", "migrate", "--store", url_}).exit_code, 0);
}

TEST_F(FleetCli, NewerSchemaIsRefused) {
  auto fleet = store::Fleet::Open(url_);
  ASSERT_TRUE(fleet.has_value());
  auto conn = store::OpenPostgres(url_, std::chrono::seconds(10));
  ASSERT_TRUE(conn.has_value());
  ASSERT_TRUE((*conn)->Exec("UPDATE nicbench_schema SET version = 99").has_value());
  ProcessResult list = RunNicbench({"mesh", "list", "--store", url_});
  EXPECT_EQ(list.exit_code, kFleetStore);
  EXPECT_NE(list.err.find("newer nicbench"), std::string::npos) << list.err;
  ProcessResult agent = RunNicbench({"agent", "--name", "a", "--store", url_});
  EXPECT_EQ(agent.exit_code, kFleetStore);
  EXPECT_EQ(RunNicbench({"store", "migrate", "--store", url_}).exit_code, kFleetStore);
  EXPECT_NE(agent.err.find("newer nicbench"), std::string::npos) << agent.err;
}

}  // namespace
}  // namespace nicbench
