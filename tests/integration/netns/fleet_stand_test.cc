// A fleet on the test stand (docs/fleet.md), as real processes: four hosts on shaped links of
// two rates (h1, h2 at 100 Mbit/s; h3 at 50 Mbit/s both ways; h4 sending at 20 Mbit/s and
// receiving at 100), each running `nicbench serve` and `nicbench agent`, and a real PostgreSQL
// server in the root namespace reached over a veth into the stand's switch. A mesh over all of
// them both ways: all 12 ordered pairs complete, the grid shows each rate where it belongs (h4's
// pairs asymmetric), and no host was ever in two tests at once, also with a second mesh over
// three of the hosts running beside it; PostgreSQL restarted mid-mesh is reconnected to. Then h4 is
// taken away: in a new mesh its cells are stale, the others complete. Stands are named nbflt*.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "accuracy_stand.h"
#include "job/agent.h"
#include "store/fleet.h"
#include "store/store_test_backends.h"
#include "support/wait.h"

namespace nicbench::accuracy {
namespace {

const auto* const kFleetStandPostgres =
    ::testing::AddGlobalTestEnvironment(new store::test::PostgresEnvironment);

// The root namespace's end of a veth into the stand's bridge, with an address of the stand's
// /24, so the hosts reach the database; removed by the stand's down (it carries its prefix).
bool JoinStand(const stand::ScopedStand& st, const std::string& address) {
  const std::string name = st.info().spec.name;
  const std::string here = name + "-pg", there = name + "-pgp";
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"ip", "link", "add", here, "type", "veth", "peer", "name", there,
                                 "netns", st.info().switch_netns},
        {"ip", "-n", st.info().switch_netns, "link", "set", there, "master",
         stand::BridgeDevice(name), "up"},
        {"ip", "addr", "add", address + "/24", "dev", here},
        {"ip", "link", "set", here, "up"}}) {
    auto r = Run(cmd);
    if (r.exit_code != 0) {
      ADD_FAILURE() << cmd[0] << " " << cmd[1] << " " << cmd[2] << ": " << r.err;
      return false;
    }
  }
  return true;
}

// Egress shaping of one end of a link (the host's end or the switch's port to it).
void ShapeEgress(const std::string& netns, const std::string& dev, const std::string& rate) {
  auto r =
      accuracy::Run({"ip", "netns", "exec", netns, "tc", "qdisc", "replace", "dev", dev, "root",
                     "handle", "1:", "tbf", "rate", rate, "burst", "12500", "limit", "312500"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

struct FleetHostProcesses {
  std::unique_ptr<testing::BackgroundProcess> serve, agent;
};

class FleetStand : public ::testing::Test {
 protected:
  void SetUp() override {
    ACCURACY_SKIP_UNLESS_ROOT();
    stand::StandSpec spec;
    spec.name = "nbflt";
    spec.hosts = 4;
    spec.profile = stand::Profile::k100BaseTx;
    auto st = UpStand(spec);
    ASSERT_TRUE(st.has_value()) << st.error().message;
    stand_.emplace(std::move(*st));
    const std::string db_address = stand::HostAddress(stand_->info().subnet_index.value_or(0), 200);
    ASSERT_TRUE(JoinStand(*stand_, db_address));
    auto& pg = store::test::TestPostgres::Instance();
    pg.ListenAlso(db_address);
    const std::string& why = pg.Ensure();
    if (!why.empty()) GTEST_SKIP() << "PostgreSQL fleet stand test skipped: " << why;
    local_url_ = pg.FreshDatabase();
    url_ = pg.UrlAt(local_url_.substr(local_url_.rfind('/') + 1));
    const std::string name = stand_->info().spec.name;
    ShapeEgress(stand::HostNamespace(name, 3), stand::HostDevice(name, 3), "50mbit");
    ShapeEgress(stand::SwitchNamespace(name), stand::SwitchPort(name, 3), "50mbit");
    ShapeEgress(stand::HostNamespace(name, 4), stand::HostDevice(name, 4), "20mbit");
    for (int h = 1; h <= 4; ++h) StartHost(h);
  }
  void TearDown() override {
    for (auto& [h, p] : hosts_) {
      if (p.agent) p.agent->Stop();
      if (p.serve) p.serve->Stop();
    }
  }

  void StartHost(int h) {
    const stand::HostInfo& host = stand_->host(h);
    FleetHostProcesses& p = hosts_[h];
    p.serve = std::make_unique<testing::BackgroundProcess>(
        Prioritized(NicbenchIn(host, {"serve", "-p", "5201", "-B", host.address})));
    ASSERT_TRUE(WaitForListener(host, 5201)) << p.serve->StderrSoFar();
    p.agent = std::make_unique<testing::BackgroundProcess>(NicbenchIn(
        host, {"agent", "--name", host.host, "--address", host.address, "--store", url_, "--poll",
               "200ms", "--heartbeat", "1s", "--lease", "10s", "--offline-after", "3s"}));
  }

  std::optional<store::Mesh> Mesh(const std::string& name) {
    auto fleet = store::Fleet::Open(local_url_);
    if (!fleet) return std::nullopt;
    auto mesh = (*fleet)->FindMesh(name);
    return mesh && *mesh ? std::optional<store::Mesh>(**mesh) : std::nullopt;
  }

  std::vector<store::FleetJob> Jobs(const std::string& mesh) {
    auto m = Mesh(mesh);
    auto fleet = store::Fleet::Open(local_url_);
    if (!m || !fleet) return {};
    auto jobs = (*fleet)->Jobs(m->id);
    return jobs ? *jobs : std::vector<store::FleetJob>();
  }

  // Waits until `count` jobs of the mesh have ended; `then` runs once when `at` have.
  bool Ended(const std::string& mesh, size_t count) {
    return testing::WaitUntil(
        [&] {
          auto jobs = Jobs(mesh);
          return jobs.size() >= count &&
                 std::all_of(jobs.begin(), jobs.end(), [](const store::FleetJob& j) {
                   return j.state != store::kJobQueued && j.state != store::kJobRunning;
                 });
        },
        std::chrono::seconds(300), std::chrono::milliseconds(250));
  }

  nlohmann::json Grid(const std::string& mesh) {
    auto r = accuracy::Run(
        {testing::NicbenchPath(), "mesh", "grid", mesh, "--json", "--store", local_url_});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return ParseJson(r);
  }

  std::optional<stand::ScopedStand> stand_;
  std::string url_, local_url_;
  std::map<int, FleetHostProcesses> hosts_;
};

const nlohmann::json* GridCellOf(const nlohmann::json& grid, const std::string& from,
                                 const std::string& to) {
  for (const auto& c : grid["cells"]) {
    if (c["sender"] == from && c["receiver"] == to) return &c;
  }
  return nullptr;
}

// The rate a pair should show: the sender's egress and the receiver's ingress, the smaller.
double ExpectedMbit(int from, int to) {
  const std::map<int, double> egress = {{1, 100}, {2, 100}, {3, 50}, {4, 20}};
  const std::map<int, double> ingress = {{1, 100}, {2, 100}, {3, 50}, {4, 100}};
  return std::min(egress.at(from), ingress.at(to));
}

// Attempts of one host must not overlap. The agents' clocks are read just before their
// transactions, so a claim may be stamped a moment before the end it followed: an overlap
// shorter than a second is that, a test of two seconds run beside another is not.
void ExpectNoHostInTwoTests(const std::vector<store::FleetAttempt>& attempts) {
  std::map<std::string, std::vector<std::pair<double, double>>> by_host;
  for (const auto& a : attempts) {
    ASSERT_TRUE(a.ended_secs.has_value()) << a.job_id;
    for (const std::string& h : {a.sender, a.receiver}) {
      by_host[h].emplace_back(a.started_secs, *a.ended_secs);
    }
  }
  for (auto& [host, spans] : by_host) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) {
      EXPECT_LT(spans[i - 1].second - spans[i].first, 1.0) << host << " in two tests at once";
    }
  }
}

TEST_F(FleetStand, MeshOfFourHostsBothWaysThenOneTakenAway) {
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto fleet = store::Fleet::Open(local_url_);
    if (!fleet) return false;
    auto hosts = (*fleet)->Hosts();
    return hosts && hosts->size() == 4;
  }));
  auto create = accuracy::Run({testing::NicbenchPath(), "mesh", "create", "all", "--hosts",
                               "h1,h2,h3,h4", "--every", "1h", "--test", "-t 2",
                               "--both-directions", "--store", local_url_});
  ASSERT_EQ(create.exit_code, 0) << create.err;
  // A second mesh over three of the same hosts runs at the same time.
  auto shared = accuracy::Run({testing::NicbenchPath(), "mesh", "create", "shared", "--hosts",
                               "h1,h2,h3", "--test", "-t 1", "--store", local_url_});
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  // PostgreSQL goes away and comes back while the mesh runs: the agents reconnect.
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto jobs = Jobs("all");
    return std::count_if(jobs.begin(), jobs.end(),
                         [](const auto& j) { return j.state == store::kJobDone; }) >= 2;
  }));
  ASSERT_TRUE(store::test::TestPostgres::Instance().Restart());
  ASSERT_TRUE(Ended("all", 12));
  ASSERT_TRUE(Ended("shared", 3));
  for (const auto& j : Jobs("shared")) EXPECT_EQ(j.state, store::kJobDone) << j.error;
  for (const auto& j : Jobs("all")) {
    EXPECT_EQ(j.state, store::kJobDone) << j.sender << "->" << j.receiver << ": " << j.error;
  }
  const nlohmann::json grid = Grid("all");
  // The grid as people read it, in the test's output.
  std::fputs(accuracy::Run({testing::NicbenchPath(), "mesh", "grid", "all", "--store", local_url_})
                 .out.c_str(),
             stdout);
  for (int from = 1; from <= 4; ++from) {
    for (int to = 1; to <= 4; ++to) {
      if (from == to) continue;
      const auto* c = GridCellOf(grid, "h" + std::to_string(from), "h" + std::to_string(to));
      ASSERT_NE(c, nullptr);
      ASSERT_TRUE((*c)["bits_per_second"].is_number()) << c->dump();
      const double mbit = (*c)["bits_per_second"].get<double>() / 1e6;
      const double expected = ExpectedMbit(from, to);
      EXPECT_GT(mbit, expected * 0.7) << c->dump();
      EXPECT_LT(mbit, expected * 1.05) << c->dump();
      EXPECT_EQ((*c)["asymmetric"].get<bool>(), from == 4 || to == 4) << c->dump();
    }
  }
  auto fleet = store::Fleet::Open(local_url_);
  ASSERT_TRUE(fleet.has_value());
  auto attempts = (*fleet)->Attempts(Mesh("all")->id);
  ASSERT_TRUE(attempts.has_value());
  EXPECT_EQ(attempts->size(), 12u);
  auto shared_attempts = (*fleet)->Attempts(Mesh("shared")->id);
  ASSERT_TRUE(shared_attempts.has_value());
  attempts->insert(attempts->end(), shared_attempts->begin(), shared_attempts->end());
  ExpectNoHostInTwoTests(*attempts);

  // h4 is taken away: once its heartbeat is older than --offline-after, a new mesh's cells with
  // h4 are stale (skipped, naming it) and the others complete.
  hosts_[4].agent->Stop();
  hosts_[4].serve->Stop();
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto hosts = (*fleet)->Hosts();
    return hosts && std::any_of(hosts->begin(), hosts->end(), [](const store::FleetHost& h) {
             return h.name == "h4" && job::WallSeconds() - h.heartbeat_secs > 4;
           });
  }));
  auto again = accuracy::Run({testing::NicbenchPath(), "mesh", "create", "without", "--hosts",
                              "h1,h2,h3,h4", "--test", "-t 1", "--store", local_url_});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  ASSERT_TRUE(Ended("without", 6));
  const nlohmann::json later = Grid("without");
  for (const auto& c : later["cells"]) {
    const bool gone = c["sender"] == "h4" || c["receiver"] == "h4";
    EXPECT_EQ(c["state"], gone ? "stale" : "ok") << c.dump();
    if (gone) {
      EXPECT_NE(c["note"].get<std::string>().find("h4 offline"), std::string::npos) << c.dump();
    }
  }
}

}  // namespace
}  // namespace nicbench::accuracy
