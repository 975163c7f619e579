// Bug: killing `nicbench stand exec` left its command running, re-parented to pid 1, inside
// the stand's namespace (issue 27, item 12). The command now dies with the wrapper: SIGTERM
// (and SIGINT, SIGHUP) is passed on to it, and SIGKILL of the wrapper kills it through
// PR_SET_PDEATHSIG. Root only (a stand).
#include <signal.h>

#include <gtest/gtest.h>

#include "regress/stand_process_util.h"
#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

stand::StandSpec ExecStand() {
  stand::StandSpec spec;
  spec.name = "st12e";
  spec.profile = stand::Profile::kUnlimited;
  return spec;
}

// Starts `stand exec h1 -- sleeper`, waits until the sleeper runs, kills the wrapper with
// `sig` and returns how the wrapper ended; the sleeper must be gone.
testing::ProcessResult KillWrapper(int sig) {
  TempDir dir;
  const std::string pid_file = dir.File("child.pid");
  std::vector<std::string> argv = {
      testing::NicbenchPath(), "stand", "exec", "--name", "st12e", "h1", "--"};
  for (auto& word : SleeperWritingPid(pid_file)) argv.push_back(word);
  testing::BackgroundProcess wrapper(argv);
  const int child = WaitForPidFile(pid_file);
  EXPECT_GT(child, 0) << "the command never ran: " << wrapper.StderrSoFar();
  KillAtExit cleanup(child);
  testing::ProcessResult ended = wrapper.Stop(sig);
  EXPECT_TRUE(testing::WaitUntil([&] { return Gone(child); }, std::chrono::seconds(30)))
      << "pid " << child << " outlived `stand exec` killed by signal " << sig;
  return ended;
}

TEST(StandExecChildOutlivesWrapper, SigkillOfTheWrapperKillsTheCommand) {
  SKIP_UNLESS_STAND_PRIVILEGES();
  auto up = stand::ScopedStand::Create(ExecStand());
  ASSERT_TRUE(up) << up.error().ToString();
  KillWrapper(SIGKILL);
}

TEST(StandExecChildOutlivesWrapper, SigtermIsPassedOnAndItsExitReturned) {
  SKIP_UNLESS_STAND_PRIVILEGES();
  auto up = stand::ScopedStand::Create(ExecStand());
  ASSERT_TRUE(up) << up.error().ToString();
  testing::ProcessResult ended = KillWrapper(SIGTERM);
  // The wrapper outlives the signal and exits as its command did (128 + SIGTERM).
  EXPECT_EQ(ended.exit_code, 128 + SIGTERM) << ended.err;
}

}  // namespace
}  // namespace nicbench::regress
