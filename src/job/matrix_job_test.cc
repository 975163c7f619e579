// The matrix job's walk with steps that record: the schedule's order, the runs a store already
// holds left out, a failed run or an interrupt ending it. No stand, no child processes.
#include "job/matrix_job.h"

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace nicbench::job {
namespace {

// What the job asked for, one word per step ("setup 1", "test 2/1", "teardown 1"), and what the
// test of a (round, variant) returns.
class RecordingSteps final : public MatrixSteps {
 public:
  std::string Setup(int v) override {
    calls.push_back("setup " + std::to_string(v));
    return "";
  }
  std::string Teardown(int v) override {
    calls.push_back("teardown " + std::to_string(v));
    return "";
  }
  Result<int> Test(int round, int v) override {
    calls.push_back("test " + std::to_string(round) + "/" + std::to_string(v));
    return round == failing_round && v == failing_variant ? 1 : 0;
  }
  bool Interrupted() override { return ++interrupt_checks == interrupt_at; }
  void Starting(int count, int total, int, int) override {
    progress.push_back(std::to_string(count) + "/" + std::to_string(total));
  }
  void Note(const std::string& text) override { notes.push_back(text); }

  std::vector<std::string> calls, progress, notes;
  int failing_round = 0, failing_variant = -1;
  int interrupt_checks = 0, interrupt_at = -1;
};

// A fresh SQLite store in a directory of its own, removed at the end.
class MatrixStore {
 public:
  MatrixStore() {
    char pattern[] = "/tmp/nicbench-matrix-job-XXXXXX";
    dir_ = mkdtemp(pattern);
    store_ = std::move(*store::OpenStore(dir_ + "/results.db"));
  }
  ~MatrixStore() {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  store::Store* get() { return store_.get(); }

 private:
  std::string dir_;
  std::unique_ptr<store::Store> store_;
};

MatrixJobSpec TwoByTwo(store::Store* store) {
  MatrixJobSpec spec;
  spec.experiment = 7;
  spec.variants = {{"x=a", std::nullopt}, {"x=b", std::nullopt}};
  spec.schedule = {{1, 0}, {0, 1}};
  spec.store = store;
  return spec;
}

TEST(MatrixJob, RunsTheScheduleInItsOrder) {
  MatrixStore store;
  RecordingSteps steps;
  const MatrixOutcome outcome = RunMatrix(TwoByTwo(store.get()), steps);
  EXPECT_EQ(outcome.end, MatrixEnd::kFinished);
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_FALSE(outcome.stand_left_changed);
  const std::vector<std::string> tests = {"test 1/1", "test 1/0", "test 2/0", "test 2/1"};
  std::vector<std::string> seen;
  for (const std::string& call : steps.calls) {
    if (call.starts_with("test")) seen.push_back(call);
  }
  EXPECT_EQ(seen, tests);
  EXPECT_EQ(steps.calls[0], "setup 1");
  EXPECT_EQ(steps.calls[2], "teardown 1");
  EXPECT_EQ(steps.progress, (std::vector<std::string>{"1/4", "2/4", "3/4", "4/4"}));
  EXPECT_TRUE(steps.notes.empty());
}

TEST(MatrixJob, RunsTheStoreHoldsAreNotRunAgain) {
  MatrixStore store;
  record::RunRecord run;
  ASSERT_TRUE(store.get()->Put(run, {{"experiment", "7"}, {"round", "1"}, {"variant", "2"}}));
  RecordingSteps steps;
  const MatrixOutcome outcome = RunMatrix(TwoByTwo(store.get()), steps);
  EXPECT_EQ(outcome.end, MatrixEnd::kFinished);
  ASSERT_FALSE(steps.calls.empty());
  EXPECT_EQ(steps.calls[1], "test 1/0") << "round 1's variant 2 is stored already";
  EXPECT_EQ(steps.progress.front(), "2/4");
}

TEST(MatrixJob, AFailedRunEndsTheJobAfterItsTeardown) {
  MatrixStore store;
  RecordingSteps steps;
  steps.failing_round = 1;
  steps.failing_variant = 0;
  const MatrixOutcome outcome = RunMatrix(TwoByTwo(store.get()), steps);
  EXPECT_EQ(outcome.end, MatrixEnd::kFailed);
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_EQ(outcome.message, "variant 1 (x=a), round 1: nicbench run exited with status 1");
  EXPECT_EQ(steps.calls.back(), "teardown 0");
  EXPECT_EQ(steps.progress.size(), 2u);
}

TEST(MatrixJob, AnInterruptBeforeARunEndsTheJob) {
  MatrixStore store;
  RecordingSteps steps;
  steps.interrupt_at = 4;  // the checks of run 1: before it, after its setup, after its test
  const MatrixOutcome outcome = RunMatrix(TwoByTwo(store.get()), steps);
  EXPECT_EQ(outcome.end, MatrixEnd::kInterrupted);
  EXPECT_EQ(outcome.exit_code, 130);
  EXPECT_EQ(steps.progress.size(), 1u);
}

}  // namespace
}  // namespace nicbench::job
