// `nicbench matrix` on loopback against a `nicbench serve` child: the experiment's runs are
// real runs stored by child `nicbench run`s; interrupting and resuming; every bad input.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "store/store.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

using nlohmann::json;

class MatrixCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("nicbench-matrix-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    server_ = testing::StartServe();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Db() const { return dir_ + "/results.db"; }
  // matrix 127.0.0.1 ARGS --store DB -- -p PORT -t 0.3 -i 0.1 RUN
  std::vector<std::string> Args(std::vector<std::string> args,
                                std::vector<std::string> run = {}) const {
    args.insert(args.begin(), {"matrix", "127.0.0.1"});
    args.insert(args.end(), {"--store", Db(), "--", "-p", std::to_string(server_.port), "-t", "0.3",
                             "-i", "0.1"});
    args.insert(args.end(), run.begin(), run.end());
    return args;
  }
  std::vector<store::RunSummary> Stored(int64_t experiment) const {
    auto s = store::OpenStore(Db(), store::OpenMode::kExisting);
    EXPECT_TRUE(s) << s.error().message;
    store::RunQuery q;
    q.experiment = experiment;
    auto runs = (*s)->Find(q);
    EXPECT_TRUE(runs);
    return *runs;
  }
  std::string dir_;
  testing::ServeChild server_;
};

TEST_F(MatrixCli, RunsEveryVariantEachRoundStoresAndCompares) {
  auto r = testing::RunNicbench(Args({"--vary", "direction=forward,reverse", "--vary=-w=256K,1M",
                                      "--repeat", "2", "--seed", "11", "--json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("seed 11"), std::string::npos) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["variants"].size(), 4u);
  EXPECT_EQ(j["seed"], 11);
  EXPECT_EQ(j["variants"][0]["name"], "direction=forward w=256K");
  EXPECT_EQ(j["variants"][3]["name"], "direction=reverse w=1M");
  for (const auto& v : j["variants"]) EXPECT_EQ(v["runs"], 2) << v["name"];
  bool window = false;
  for (const auto& d : j["variants"][1]["versus_first"]["differs"]) {
    window = window || d["fact"] == "options.window";
  }
  EXPECT_TRUE(window) << j["variants"][1].dump();
  // Each run stored with its labels; every round holds every variant once.
  const int64_t experiment = j["experiment"];
  auto runs = Stored(experiment);
  ASSERT_EQ(runs.size(), 8u);
  std::map<std::string, int> per_round;
  for (const auto& run : runs) {
    EXPECT_EQ(run.labels.at("experiment"), std::to_string(experiment));
    ++per_round[run.labels.at("round") + "/" + run.labels.at("variant")];
    EXPECT_EQ(run.direction, run.labels.at("direction") == "reverse" ? "reverse" : "forward");
  }
  EXPECT_EQ(per_round.size(), 8u);
  // The same experiment compared by selector.
  auto c = testing::RunNicbench({"compare", "label:direction=forward,w=256K",
                                 "label:direction=forward,w=1M", "--store", Db()});
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("options.window"), std::string::npos) << c.out;
}

TEST_F(MatrixCli, SetupPlaceholdersAndCsv) {
  const std::string log = dir_ + "/setup.log";
  auto r = testing::RunNicbench(
      Args({"--vary", "ring=512,1024", "--repeat", "1", "--setup", "echo setup {ring} >> " + log,
            "--teardown", "echo teardown {ring} >> " + log, "--csv"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("variant,metric,unit,n,", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("ring=1024,"), std::string::npos) << r.out;
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("setup 512\nteardown 512\n"), std::string::npos) << text;
  EXPECT_NE(text.find("setup 1024\nteardown 1024\n"), std::string::npos) << text;
}

TEST_F(MatrixCli, FailingSetupStopsSaysWhichAndKeepsTheRuns) {
  // Variants on, off; the setup fails for off. With this seed the first round runs on first.
  auto r = testing::RunNicbench(Args({"--vary", "mode=on,off", "--repeat", "2", "--seed", "1",
                                      "--setup", "test {mode} = on || exit 3"}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("(mode=off)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--setup exited with status 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--resume 1"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  size_t stored = 0;
  for (size_t at = r.err.find("stored run"); at != std::string::npos;
       at = r.err.find("stored run", at + 1)) {
    ++stored;
  }
  EXPECT_EQ(Stored(1).size(), stored);
  auto s = store::OpenStore(Db(), store::OpenMode::kExisting);
  EXPECT_EQ((*(*s)->GetExperiment(1))->state, "failed");
}

TEST_F(MatrixCli, InterruptLeavesRunsStoredAndResumeCompletes) {
  // The first run's setup goes through; every later one waits for a gate file the test makes
  // after its SIGINT, so the interrupt lands between runs 1 and 2 however slow the host is.
  // (The loop polls with a bound of 60 s: a test that failed before opening the gate leaves no
  // setup behind for long.)
  const std::string first = dir_ + "/first", gate = dir_ + "/gate";
  const std::string setup = "if [ ! -e '" + first + "' ]; then touch '" + first +
                            "'; else i=0; while [ ! -e '" + gate +
                            "' ] && [ $i -lt 6000 ]; do sleep 0.01; i=$((i+1)); done; fi";
  std::vector<std::string> argv =
      Args({"--vary", "direction=forward,reverse", "--repeat", "2", "--setup", setup});
  argv.insert(argv.begin(), testing::NicbenchPath());
  testing::BackgroundProcess matrix(argv);
  ASSERT_TRUE(matrix.WaitForOutput("stored run", std::chrono::seconds(60))) << matrix.StderrSoFar();
  ASSERT_EQ(kill(matrix.pid(), SIGINT), 0);
  std::ofstream(gate).put('\n');
  testing::ProcessResult r = matrix.Wait();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  EXPECT_EQ(Stored(1).size(), 1u);
  // The stored --setup runs only when given again (docs/compare.md, "What a resume trusts").
  auto resumed = testing::RunNicbench(
      {"matrix", "--resume", "1", "--setup", setup, "--store", Db(), "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(Stored(1).size(), 4u);
  const json j = json::parse(resumed.out);
  for (const auto& v : j["variants"]) EXPECT_EQ(v["runs"], 2) << v["name"];
}

struct BadMatrix {
  std::vector<std::string> args;
  int exit_code;
  std::string message;
};

TEST_F(MatrixCli, BadInputSaysWhatAndExits) {
  const std::vector<BadMatrix> cases = {
      {Args({"--vary", "irqmode=msi,msix", "--repeat", "1"}), 2, "--vary irqmode"},
      {Args({"--vary", "irqmode=msi", "--repeat", "1", "--setup", "echo {other}"}), 2,
       "no --setup or --teardown uses {irqmode}"},
      {Args({"--vary", "tso=on,off", "--repeat", "1"}), 2, "stand link"},
      {Args({"--vary", "direction", "--repeat", "1"}), 2, "expected NAME=V1,V2"},
      {Args({"--vary", "direction=sideways", "--repeat", "1"}), 2, "'sideways' is not one of"},
      {Args({"--vary", "streams=1", "--repeat", "0"}), 2, "--repeat"},
      {Args({"--vary", "streams=1", "--repeat", "1", "--seed", "x"}), 2, "--seed"},
      {Args({"--repeat", "1"}), 2, "--vary"},
      {{"matrix", "--resume", "42", "--store", "DB"}, 5, "no experiment 42"},
      {{"matrix", "--resume", "x", "--store", "DB"}, 2, "not an experiment id"},
      {{"matrix", "127.0.0.1", "--resume", "1", "--store", "DB"}, 2, "own definition"},
  };
  // A store must exist for --resume.
  ASSERT_TRUE(store::OpenStore(Db()));
  for (BadMatrix c : cases) {
    for (auto& a : c.args) {
      if (a == "DB") a = Db();
    }
    auto r = testing::RunNicbench(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.message << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.message << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // Bad input stores no experiment.
  auto s = store::OpenStore(Db(), store::OpenMode::kExisting);
  EXPECT_FALSE(*(*s)->GetExperiment(1));
}

}  // namespace
}  // namespace nicbench
