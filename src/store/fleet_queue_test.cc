// The fleet's queue against a real PostgreSQL server (store_test_backends.h): claims take both
// hosts, leases expire into one re-run, a run is stored exactly once, periods are written with
// offline hosts named, and agents racing for overlapping pairs neither deadlock nor put a host
// in two tests at once.
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "record/json_test_records.h"
#include "store/fleet.h"
#include "store/store.h"
#include "store/store_test_backends.h"

namespace nicbench::store {
namespace {

class FleetQueue : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string& why = test::TestPostgres::Instance().Ensure();
    if (!why.empty()) GTEST_SKIP() << "PostgreSQL fleet tests skipped: " << why;
    url_ = test::TestPostgres::Instance().FreshDatabase();
    fleet_ = Open();
  }

  std::unique_ptr<Fleet> Open() {
    auto fleet = Fleet::Open(url_);
    EXPECT_TRUE(fleet.has_value()) << fleet.error().message;
    return fleet ? std::move(*fleet) : nullptr;
  }

  void Register(const std::vector<std::string>& names, double now) {
    for (const std::string& name : names) {
      FleetHost h;
      h.name = name;
      h.addresses = {"198.18.0." + std::to_string(name.size())};
      h.version = "test";
      ASSERT_TRUE(fleet_->Heartbeat(h, now).has_value());
    }
  }

  // A mesh of every ordered pair of `hosts`, its first period written.
  int64_t FullMesh(const std::string& name, const std::vector<std::string>& hosts, double now) {
    MeshSpec spec;
    spec.name = name;
    spec.hosts = hosts;
    for (const auto& a : hosts) {
      for (const auto& b : hosts) {
        if (a != b) spec.pairs.emplace_back(a, b);
      }
    }
    spec.test = {"-t", "1"};
    spec.every_secs = 3600;
    auto id = fleet_->CreateMesh(spec, now);
    EXPECT_TRUE(id.has_value()) << id.error().message;
    auto written = fleet_->Schedule(now, terms_);
    EXPECT_TRUE(written.has_value()) << written.error().message;
    return id.value_or(0);
  }

  std::string url_;
  std::unique_ptr<Fleet> fleet_;
  LeaseTerms terms_;
};

TEST_F(FleetQueue, ClaimTakesBothHostsUntilTheJobEnds) {
  Register({"a", "b", "c"}, 100);
  const int64_t mesh = FullMesh("m", {"a", "b", "c"}, 100);
  auto job = fleet_->Claim("a", 101, terms_);
  ASSERT_TRUE(job.has_value()) << job.error().message;
  ASSERT_TRUE(job->has_value());
  EXPECT_EQ((*job)->sender, "a");
  EXPECT_EQ((*job)->receiver_address, "198.18.0.1");
  EXPECT_EQ((*job)->test, (std::vector<std::string>{"-t", "1"}));
  const std::string busy = (*job)->receiver;
  const std::string free = busy == "b" ? "c" : "b";
  // The receiver is in a test: its own jobs wait; the third host's job to the receiver waits
  // too; the third host's job to the sender as well (the sender is busy).
  auto none = fleet_->Claim(busy, 102, terms_);
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->has_value());
  auto none_either = fleet_->Claim(free, 102, terms_);
  ASSERT_TRUE(none_either.has_value());
  EXPECT_FALSE(none_either->has_value());
  auto id = fleet_->Finish(**job, record::testing::MakeTcpRun(), {{"mesh", "m"}}, 103);
  ASSERT_TRUE(id.has_value()) << id.error().message;
  auto next = fleet_->Claim(free, 104, terms_);
  ASSERT_TRUE(next.has_value());
  EXPECT_TRUE(next->has_value());
  auto jobs = fleet_->Jobs(mesh);
  ASSERT_TRUE(jobs.has_value());
  EXPECT_EQ(jobs->size(), 6u);
}

TEST_F(FleetQueue, ExpiredLeaseRequeuesOnceThenFails) {
  Register({"a", "b"}, 100);
  const int64_t mesh = FullMesh("m", {"a", "b"}, 100);
  auto first = fleet_->Claim("a", 101, terms_);
  ASSERT_TRUE(first.has_value() && first->has_value());
  ASSERT_TRUE(fleet_->Renew(**first, 120, terms_).has_value());
  auto early = fleet_->ExpireLeases(120 + terms_.lease - 1, terms_);
  ASSERT_TRUE(early.has_value());
  EXPECT_EQ(*early, 0);  // renewed: not expired
  auto expired = fleet_->ExpireLeases(120 + terms_.lease + 1, terms_);
  ASSERT_TRUE(expired.has_value());
  EXPECT_EQ(*expired, 1);
  // The agent that lost the lease cannot store its run or renew.
  EXPECT_FALSE(fleet_->Finish(**first, record::testing::MakeTcpRun(), {}, 200).has_value());
  EXPECT_FALSE(fleet_->Renew(**first, 200, terms_).has_value());
  auto second = fleet_->Claim("a", 200, terms_);
  ASSERT_TRUE(second.has_value() && second->has_value());
  EXPECT_EQ((*second)->id, (*first)->id);
  EXPECT_EQ((*second)->attempts, 2);
  ASSERT_TRUE(fleet_->ExpireLeases(200 + terms_.lease + 1, terms_).has_value());
  auto jobs = fleet_->Jobs(mesh);
  ASSERT_TRUE(jobs.has_value());
  bool failed = false;
  for (const FleetJob& j : *jobs) {
    if (j.id != (*first)->id) continue;
    failed = j.state == kJobFailed;
    EXPECT_NE(j.error.find("not run a third time"), std::string::npos) << j.error;
  }
  EXPECT_TRUE(failed);
  auto attempts = fleet_->Attempts(mesh);
  ASSERT_TRUE(attempts.has_value());
  ASSERT_EQ(attempts->size(), 2u);
  EXPECT_EQ(attempts->at(0).outcome, "lease expired");
}

TEST_F(FleetQueue, ReleasedJobIsQueuedAgainWithoutUsingItsReRun) {
  Register({"a", "b"}, 100);
  const int64_t mesh = FullMesh("m", {"a", "b"}, 100);
  auto first = fleet_->Claim("a", 101, terms_);
  ASSERT_TRUE(first.has_value() && first->has_value());
  ASSERT_TRUE(fleet_->Release(**first, "agent a stopped during the test", 102).has_value());
  // Released twice, or finished after its release: the claim is gone.
  EXPECT_FALSE(fleet_->Release(**first, "again", 103).has_value());
  EXPECT_FALSE(fleet_->Finish(**first, record::testing::MakeTcpRun(), {}, 103).has_value());
  // Both hosts are free at once: the job is claimed again without waiting for a lease.
  auto second = fleet_->Claim("a", 103, terms_);
  ASSERT_TRUE(second.has_value() && second->has_value());
  EXPECT_EQ((*second)->id, (*first)->id);
  EXPECT_EQ((*second)->attempts, 2);
  // Its lease expires: the released attempt was no re-run, so it is queued once more.
  auto expired = fleet_->ExpireLeases(103 + terms_.lease + 1, terms_);
  ASSERT_TRUE(expired.has_value());
  EXPECT_EQ(*expired, 1);
  auto jobs = fleet_->Jobs(mesh);
  ASSERT_TRUE(jobs.has_value());
  for (const FleetJob& j : *jobs) {
    if (j.id == (*first)->id) {
      EXPECT_EQ(j.state, kJobQueued) << j.error;
    }
  }
  auto attempts = fleet_->Attempts(mesh);
  ASSERT_TRUE(attempts.has_value());
  ASSERT_EQ(attempts->size(), 2u);
  EXPECT_EQ(attempts->at(0).outcome, "released");
  EXPECT_EQ(attempts->at(1).outcome, "lease expired");
}

TEST_F(FleetQueue, FinishStoresTheRunOnceAndTheGridReadsIt) {
  Register({"a", "b"}, 100);
  const int64_t mesh = FullMesh("m", {"a", "b"}, 100);
  auto job = fleet_->Claim("a", 101, terms_);
  ASSERT_TRUE(job.has_value() && job->has_value());
  auto id = fleet_->Finish(**job, record::testing::MakeTcpRun(), {{"mesh", "m"}}, 102);
  ASSERT_TRUE(id.has_value()) << id.error().message;
  EXPECT_FALSE(fleet_->Finish(**job, record::testing::MakeTcpRun(), {}, 103).has_value());
  auto store = OpenStore(url_, OpenMode::kExisting);
  ASSERT_TRUE(store.has_value());
  auto runs = (*store)->Find(RunQuery{});
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().id, *id);
  EXPECT_EQ(runs->front().labels.at("mesh"), "m");
  auto grid = fleet_->Grid(mesh);
  ASSERT_TRUE(grid.has_value());
  ASSERT_EQ(grid->size(), 2u);
  for (const PairResult& p : *grid) {
    if (p.sender != "a") continue;
    ASSERT_TRUE(p.last_done.has_value());
    EXPECT_EQ(p.last_done->run_id, *id);
    EXPECT_TRUE(p.goodput_bits_per_second.has_value());
  }
}

TEST_F(FleetQueue, PeriodsNameOfflineHostsAndSkipWhatDidNotRun) {
  Register({"a", "b"}, 100);
  Register({"c"}, 0);  // its agent stopped long ago
  const int64_t mesh = FullMesh("m", {"a", "b", "c"}, 100);
  auto again = fleet_->Schedule(101, terms_);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, 0);  // the next period is an hour away
  auto jobs = fleet_->Jobs(mesh);
  ASSERT_TRUE(jobs.has_value());
  int skipped = 0;
  for (const FleetJob& j : *jobs) {
    if (j.sender != "c" && j.receiver != "c") {
      EXPECT_EQ(j.state, kJobQueued);
      continue;
    }
    ++skipped;
    EXPECT_EQ(j.state, kJobSkipped);
    EXPECT_NE(j.error.find("host c offline"), std::string::npos) << j.error;
  }
  EXPECT_EQ(skipped, 4);
  auto next = fleet_->Schedule(100 + 3600, terms_);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(*next, 6);
  auto later = fleet_->Jobs(mesh);
  ASSERT_TRUE(later.has_value());
  int not_run = 0;
  for (const FleetJob& j : *later) {
    if (j.period == 0 && j.state == kJobSkipped && j.error.starts_with("not run within")) {
      ++not_run;
    }
  }
  EXPECT_EQ(not_run, 2);  // a -> b and b -> a of period 0
}

TEST_F(FleetQueue, MeshErrorsNameTheProblem) {
  Register({"a", "b"}, 100);
  MeshSpec spec;
  spec.name = "m";
  spec.hosts = {"a", "nas"};
  spec.pairs = {{"a", "nas"}};
  auto unknown = fleet_->CreateMesh(spec, 100);
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("unknown host 'nas'"), std::string::npos);
  spec.hosts = {"a", "b"};
  spec.pairs = {{"a", "b"}};
  ASSERT_TRUE(fleet_->CreateMesh(spec, 100).has_value());
  EXPECT_FALSE(fleet_->CreateMesh(spec, 100).has_value());
  EXPECT_TRUE(fleet_->SetMeshState("m", "paused", 100).has_value());
  EXPECT_FALSE(fleet_->SetMeshState("other", "paused", 100).has_value());
  auto written = fleet_->Schedule(100, terms_);
  ASSERT_TRUE(written.has_value());
  EXPECT_EQ(*written, 0);  // paused
  EXPECT_TRUE(fleet_->DeleteMesh("m").has_value());
  auto meshes = fleet_->Meshes();
  ASSERT_TRUE(meshes.has_value());
  EXPECT_TRUE(meshes->empty());
}

// Agents claim and finish as fast as they can over meshes that share every host: no claim or
// finish fails (a deadlock would be PostgreSQL's 40P01), every job is done, and no host was
// ever held by two of the test's agents at once.
TEST_F(FleetQueue, RacingAgentsNeitherDeadlockNorOverlap) {
  const std::vector<std::string> hosts = {"a", "b", "c", "d"};
  Register(hosts, 100);
  std::vector<int64_t> meshes;
  for (int m = 0; m < 5; ++m) meshes.push_back(FullMesh("m" + std::to_string(m), hosts, 100));
  std::map<std::string, std::atomic<int>> holders;
  for (const auto& h : hosts) holders[h] = 0;
  std::atomic<int> overlaps{0}, errors{0}, finished{0};
  auto agent = [&](const std::string& name) {
    auto fleet = Open();
    if (!fleet) return;
    for (int idle = 0; idle < 2000 && finished.load() < 60;) {
      auto job = fleet->Claim(name, 101, terms_);
      if (!job) {
        ++errors;
        ADD_FAILURE() << job.error().message;
        return;
      }
      if (!job->has_value()) {
        ++idle;
        std::this_thread::yield();
        continue;
      }
      for (const auto* h : {&(*job)->sender, &(*job)->receiver}) {
        if (holders.at(*h).fetch_add(1) != 0) ++overlaps;
      }
      for (const auto* h : {&(*job)->sender, &(*job)->receiver}) holders.at(*h).fetch_sub(1);
      auto id = fleet->Finish(**job, record::testing::MakeTcpRun(), {}, 102);
      if (!id) {
        ++errors;
        ADD_FAILURE() << id.error().message;
        return;
      }
      ++finished;
    }
  };
  std::vector<std::thread> threads;
  for (const auto& h : hosts) threads.emplace_back(agent, h);
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(finished.load(), 60);
  for (int64_t mesh : meshes) {
    auto jobs = fleet_->Jobs(mesh);
    ASSERT_TRUE(jobs.has_value());
    for (const FleetJob& j : *jobs) EXPECT_EQ(j.state, kJobDone) << j.sender << "->" << j.receiver;
  }
}

}  // namespace
}  // namespace nicbench::store
