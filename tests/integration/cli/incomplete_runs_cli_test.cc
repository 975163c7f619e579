// Interrupted runs in the store, from the command line (docs/store.md): the main job
// interrupted by SIGINT after its first interval stores its forward run marked incomplete;
// `history` leaves it out unless given --incomplete and then marks it in text, JSON and CSV;
// `compare` leaves it out of a set and says so on stderr, refuses it by id, and takes it with
// --incomplete. Real loopback runs against a `nicbench serve` child and the main job's own
// server.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"
#include "support/text.h"

namespace nicbench {
namespace {

using nlohmann::json;
using testing::ProcessResult;

constexpr int kNotFound = 5;

// Four complete runs (labels set=a and set=b, two each), then the main job with set=a,
// interrupted during its forward run: run 5.
class IncompleteRunsCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(std::filesystem::temp_directory_path() /
                           ("nicbench-incomplete-" + std::to_string(getpid())));
    std::filesystem::create_directories(*dir_);
    testing::ServeChild serve = testing::StartServe();
    for (const char* set : {"a", "a", "b", "b"}) {
      ProcessResult r = testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(serve.port),
                                              "-t", "0.3", "-i", "0.1", "--store", Db(), "--label",
                                              std::string("set=") + set});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    testing::BackgroundProcess main_job({testing::NicbenchPath(), "run", "-t", "60", "-i", "0.2",
                                         "--store", Db(), "--label", "set=a"});
    // Its first interval line: the forward run has moved data.
    ASSERT_TRUE(main_job.WaitForOutput("0.00-0.20", std::chrono::seconds(60)))
        << main_job.StdoutSoFar() << main_job.StderrSoFar();
    ASSERT_EQ(kill(main_job.pid(), SIGINT), 0);
    interrupted_ = new ProcessResult(main_job.Wait());
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
    delete interrupted_;
  }
  static std::string Db() { return *dir_ + "/results.db"; }
  static ProcessResult Nicbench(std::vector<std::string> args) {
    args.insert(args.end(), {"--store", Db()});
    return testing::RunNicbench(args);
  }
  static std::string* dir_;
  static ProcessResult* interrupted_;
};
std::string* IncompleteRunsCli::dir_ = nullptr;
ProcessResult* IncompleteRunsCli::interrupted_ = nullptr;

using testing::Lines;

std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  return cells;
}

TEST_F(IncompleteRunsCli, TheInterruptedMainJobStoresItsForwardRunMarked) {
  ASSERT_NE(interrupted_, nullptr);
  EXPECT_EQ(interrupted_->exit_code, 130) << interrupted_->err;
  EXPECT_NE(interrupted_->err.find("stored run 5 in sqlite:" + Db() + ", marked incomplete"),
            std::string::npos)
      << interrupted_->err;
  EXPECT_EQ(interrupted_->err.find("stored run 6"), std::string::npos) << interrupted_->err;
  EXPECT_NE(interrupted_->out.find("incomplete"), std::string::npos) << interrupted_->out;
}

TEST_F(IncompleteRunsCli, HistoryLeavesItOutUnlessAskedAndThenMarksIt) {
  ProcessResult text = Nicbench({"history"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(Lines(text.out).size(), 5u) << text.out;  // header and runs 4..1
  EXPECT_EQ(text.out.find("incomplete"), std::string::npos) << text.out;

  text = Nicbench({"history", "--incomplete"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const std::vector<std::string> lines = Lines(text.out);
  ASSERT_EQ(lines.size(), 6u) << text.out;
  EXPECT_EQ(lines[1].rfind(" 5  ", 0), 0u) << text.out;  // newest first, ids right-aligned
  EXPECT_NE(lines[1].find("incomplete (interrupted)"), std::string::npos) << text.out;
  EXPECT_EQ(lines[2].find("incomplete"), std::string::npos) << text.out;

  ProcessResult j = Nicbench({"history", "--json", "--incomplete"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json runs = json::parse(j.out)["runs"];
  ASSERT_EQ(runs.size(), 5u) << j.out;
  EXPECT_EQ(runs[0]["id"], 5);
  EXPECT_EQ(runs[0]["incomplete"], true);
  EXPECT_EQ(runs[0]["direction"], "forward");
  EXPECT_EQ(runs[1]["incomplete"], false);
  // The receiver's count was never exchanged: unknown, not 0; the sender's is this end's own.
  EXPECT_TRUE(runs[0]["receiver_bits_per_second"].is_null()) << runs[0].dump();
  EXPECT_GT(runs[0]["sender_bits_per_second"].get<double>(), 0) << runs[0].dump();
  j = Nicbench({"history", "--json"});
  EXPECT_EQ(json::parse(j.out)["runs"].size(), 4u) << j.out;

  ProcessResult csv = Nicbench({"history", "--csv", "--incomplete"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const std::vector<std::string> rows = Lines(csv.out);
  ASSERT_EQ(rows.size(), 6u) << csv.out;
  const std::vector<std::string> header = Cells(rows[0]);
  const auto column = std::find(header.begin(), header.end(), "incomplete") - header.begin();
  ASSERT_LT(static_cast<size_t>(column), header.size()) << rows[0];
  EXPECT_EQ(Cells(rows[1]).at(column), "1") << csv.out;
  EXPECT_EQ(Cells(rows[2]).at(column), "0") << csv.out;
  // A table of complete runs is as it was.
  csv = Nicbench({"history", "--csv"});
  EXPECT_EQ(csv.out.find("incomplete"), std::string::npos) << csv.out;
}

TEST_F(IncompleteRunsCli, CompareLeavesItOutOfASetAndSaysWhich) {
  ProcessResult r = Nicbench({"compare", "label:set=a", "label:set=b", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("selector 'label:set=a' leaves out incomplete run 5 (interrupted after"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--incomplete includes it"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(r.out)["a"]["ids"], json({2, 1})) << r.out;

  r = Nicbench({"compare", "label:set=a", "label:set=b", "--json", "--incomplete"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("leaves out"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(r.out)["a"]["ids"], json({5, 2, 1})) << r.out;
}

TEST_F(IncompleteRunsCli, CompareOfTheIncompleteRunByIdSaysWhyNot) {
  ProcessResult r = Nicbench({"compare", "5", "3"});
  EXPECT_EQ(r.exit_code, kNotFound) << r.err;
  EXPECT_NE(r.err.find("run 5 is incomplete (interrupted after"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--incomplete includes it"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  r = Nicbench({"compare", "5", "3", "--incomplete"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace nicbench
