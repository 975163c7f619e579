// `matrix --resume` ran what the store said: the experiment's --setup/--teardown shell commands
// and run options were read back from the store and executed, so whoever could write the store
// (a shared PostgreSQL) ran commands as whoever resumed; planted run options `-R -F FILE` wrote
// a test's data to a path of their choosing. Now a resume runs stored commands only when the
// person resuming gives them again, word for word, and stored run options pass run's own checks
// and may not name a file.
#include <unistd.h>

#include <filesystem>

#include "cli/matrix_plan.h"
#include "regress/server_test_util.h"
#include "store/store.h"

namespace nicbench::regress {
namespace {

class MatrixResumeStoredCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("nicbench-resume-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    server_ = testing::StartServe();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // What someone with write access to the store plants: an experiment as `matrix` stores it.
  int64_t Plant(const std::string& setup, std::vector<std::string> run_options) {
    cli::MatrixDefinition d;
    d.host = "127.0.0.1";
    d.varies = {{"streams", {"1"}}};
    d.repeat = 1;
    d.seed = 1;
    d.setup = setup;
    d.run_options = {"-p", std::to_string(server_.port), "-t", "0.3"};
    d.run_options.insert(d.run_options.end(), run_options.begin(), run_options.end());
    d.schedule = {{0}};
    auto store = store::OpenStore(Path("results.db"));
    EXPECT_TRUE(store) << store.error().message;
    auto id = (*store)->PutExperiment(cli::DefinitionToJson(d));
    EXPECT_TRUE(id) << id.error().message;
    return *id;
  }
  testing::ProcessResult Resume(int64_t id, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"matrix", "--resume", std::to_string(id), "--store",
                                     Path("results.db")};
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::RunNicbench(args);
  }

  std::string dir_;
  testing::ServeChild server_;
};

TEST_F(MatrixResumeStoredCommands, AStoredCommandRunsOnlyWhenTheUserGivesItAgain) {
  const std::string marker = Path("planted-command-ran");
  const std::string command = "touch " + marker;
  const int64_t id = Plant(command, {});

  testing::ProcessResult refused = Resume(id);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the stored --setup ran unconfirmed";
  // The command is shown, so the user can read it before confirming.
  EXPECT_NE(refused.err.find("--setup " + command), std::string::npos) << refused.err;

  testing::ProcessResult other = Resume(id, {"--setup", "true"});
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_FALSE(std::filesystem::exists(marker));

  testing::ProcessResult confirmed = Resume(id, {"--setup", command});
  EXPECT_EQ(confirmed.exit_code, 0) << confirmed.err;
  EXPECT_TRUE(std::filesystem::exists(marker)) << confirmed.err;
}

TEST_F(MatrixResumeStoredCommands, StoredRunOptionsCannotWriteAFileOrPassWhatRunRefuses) {
  const std::string target = Path("planted-write-target");
  const int64_t writes = Plant("", {"-R", "-F", target});
  testing::ProcessResult r = Resume(writes);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("-F " + target), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(target)) << "a planted -R -F wrote to a chosen path";

  const std::string html = Path("planted.html");
  testing::ProcessResult h = Resume(Plant("", {"--html", html}));
  EXPECT_EQ(h.exit_code, 2) << h.err;
  EXPECT_FALSE(std::filesystem::exists(html));

  // What `run` itself refuses is refused before any run, as on the command line.
  testing::ProcessResult bad = Resume(Plant("", {"-t", "abc"}));
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  testing::ProcessResult unknown = Resume(Plant("", {"--no-such-option"}));
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
}

}  // namespace
}  // namespace nicbench::regress
