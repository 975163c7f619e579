// The run job called as a fleet agent or a monitor would, with no argv: a spec in, records and
// findings out, the events told in order. Real sockets on 127.0.0.1.
#include <stdlib.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "job/run_job.h"
#include "store/store.h"
#include "support/run_binary.h"

namespace nicbench::run_job_test {
namespace {

using std::chrono::milliseconds;

// A short timed test with several intervals.
job::RunJobSpec ShortSpec() {
  job::RunJobSpec spec;
  spec.client.host = "127.0.0.1";
  spec.client.spec.duration = milliseconds(600);
  spec.client.spec.interval = milliseconds(200);
  spec.client.live_samples = true;
  return spec;
}

// Every event, in the order told, as one letter per event: S(tarting) C(onnected) I(nterval)
// L(ate remote sample) E(nded) P(air).
class RecordingEvents final : public job::RunJobEvents {
 public:
  void TestStarting(const engine::ClientConfig& test) override {
    order += 'S';
    directions.push_back(test.spec.direction);
  }
  void Connected(const record::RunRecord&) override { order += 'C'; }
  void Interval(const record::RunRecord&, const record::IntervalRecord&,
                const record::HostInterval* local, const record::HostInterval*) override {
    order += 'I';
    locals += local != nullptr ? 1 : 0;
  }
  void LateRemoteSample(const record::RunRecord&, const record::HostInterval&) override {
    order += 'L';
  }
  void TestEnded(const engine::ClientOutcome& outcome) override {
    order += 'E';
    findings_at_end.push_back(outcome.record.findings.size());
  }
  void PairEnded(const job::DirectionPair&) override { order += 'P'; }

  std::string order;
  int locals = 0;
  std::vector<record::Direction> directions;
  std::vector<size_t> findings_at_end;
};

// The events of one test, late samples left out: S C I... E.
std::string WithoutLate(std::string order) {
  std::erase(order, 'L');
  return order;
}

TEST(RunJobLoopback, BothDirectionsWithBothEndsAndThePair) {
  job::RunJobSpec spec = ShortSpec();
  spec.loopback = true;
  RecordingEvents events;
  auto result = job::RunJob(spec, events);
  ASSERT_TRUE(result.has_value()) << result.error().ToString();
  ASSERT_EQ(result->runs.size(), 2u);
  for (const engine::ClientOutcome& run : result->runs) {
    ASSERT_TRUE(run.ok()) << run.status.error().ToString();
    EXPECT_TRUE(run.record.remote.known()) << "the in-process server's end is in the record";
    EXPECT_FALSE(run.record.intervals.empty());
  }
  EXPECT_EQ(result->runs[0].record.spec.direction, record::Direction::kForward);
  EXPECT_EQ(result->runs[1].record.spec.direction, record::Direction::kReverse);
  ASSERT_TRUE(result->pair.has_value());
  EXPECT_FALSE(result->pair->rows.empty());
  EXPECT_TRUE(result->stored.empty()) << "no store target, nothing stored";
  EXPECT_EQ(events.directions, (std::vector<record::Direction>{record::Direction::kForward,
                                                               record::Direction::kReverse}));
  // Each test: started, connected, its intervals, ended; then the pair.
  const std::string forward =
      "SC" + std::string(result->runs[0].record.intervals.size(), 'I') + "E";
  const std::string reverse =
      "SC" + std::string(result->runs[1].record.intervals.size(), 'I') + "E";
  EXPECT_EQ(WithoutLate(events.order), forward + reverse + "P");
  EXPECT_GT(events.locals, 0) << "this host's samples come with the intervals";
  // The pair's findings join the second record after its TestEnded.
  EXPECT_EQ(result->runs[1].record.findings.size(),
            events.findings_at_end[1] + result->pair->findings.size());
}

TEST(RunJobLoopback, NoIntervalEventsWithoutIntervals) {
  job::RunJobSpec spec = ShortSpec();
  spec.loopback = true;
  spec.client.spec.interval = milliseconds(0);
  RecordingEvents events;
  auto result = job::RunJob(spec, events);
  ASSERT_TRUE(result.has_value()) << result.error().ToString();
  EXPECT_EQ(events.order, "SCESCEP");
}

// A scratch directory for a store, removed with what it holds.
class StoreDir {
 public:
  StoreDir() {
    std::string t = "/tmp/nicbench-run-job-XXXXXX";
    path_ = mkdtemp(t.data()) ? t : "";
  }
  ~StoreDir() {
    if (!path_.empty()) (void)std::system(("rm -rf '" + path_ + "'").c_str());
  }
  std::string Db() const { return path_ + "/results.db"; }

 private:
  std::string path_;
};

TEST(RunJobAgainstAHost, OneTestIsStoredWithItsLabels) {
  testing::ServeChild server = testing::StartServe();
  StoreDir dir;
  job::RunJobSpec spec = ShortSpec();
  spec.client.port = static_cast<uint16_t>(server.port);
  spec.store = job::StoreTarget{dir.Db(), {{"site", "lab"}}};
  auto result = job::RunJob(spec);
  ASSERT_TRUE(result.has_value()) << result.error().ToString();
  ASSERT_EQ(result->runs.size(), 1u);
  const engine::ClientOutcome& run = result->runs[0];
  ASSERT_TRUE(run.ok()) << run.status.error().ToString();
  EXPECT_TRUE(run.record.remote.known()) << "a nicbench server sends its end";
  EXPECT_FALSE(result->pair.has_value());
  EXPECT_FALSE(result->store_error.has_value()) << result->store_error->ToString();
  ASSERT_EQ(result->stored.size(), 1u);
  auto store = store::OpenStore(dir.Db(), store::OpenMode::kExisting);
  ASSERT_TRUE(store.has_value()) << store.error().ToString();
  auto stored = (*store)->Get(result->stored[0].id);
  ASSERT_TRUE(stored.has_value()) << stored.error().ToString();
  ASSERT_TRUE(stored->has_value());
  EXPECT_EQ((*stored)->summary.labels.at("site"), "lab");
  EXPECT_EQ((*stored)->record.findings.size(), run.record.findings.size());
}

TEST(RunJobAgainstAHost, AFailedTestIsNotStored) {
  StoreDir dir;
  job::RunJobSpec spec = ShortSpec();
  spec.client.port = static_cast<uint16_t>(testing::FreeTcpPort());  // nobody listens
  spec.client.connect_timeout = milliseconds(2000);
  spec.store = job::StoreTarget{dir.Db(), {}};
  auto result = job::RunJob(spec);
  ASSERT_TRUE(result.has_value()) << result.error().ToString();
  ASSERT_EQ(result->runs.size(), 1u);
  EXPECT_FALSE(result->runs[0].ok());
  EXPECT_EQ(result->runs[0].status.error().kind, ErrorKind::kConnect);
  EXPECT_FALSE(job::Kept(result->runs[0]));
  EXPECT_TRUE(result->stored.empty());
  EXPECT_FALSE(result->store_error.has_value());
}

}  // namespace
}  // namespace nicbench::run_job_test
