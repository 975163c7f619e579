// Bug: `nicbench stand down` said "stand ... is down" with exit 0 while a server kept running
// inside one of its namespaces, which then lived on without a name (issue 27, item 12). Down
// now refuses and names each process (pid, namespace, command); `--force` stops them (SIGTERM,
// then SIGKILL) and takes the stand down. Root only (a stand).
#include <signal.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "regress/stand_process_util.h"
#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

TEST(StandDownLeavesProcessesRunning, RefusesNamingThemThenForceStopsThem) {
  SKIP_UNLESS_STAND_PRIVILEGES();
  stand::StandSpec spec;
  spec.name = "st12d";
  spec.profile = stand::Profile::kUnlimited;
  auto up = stand::ScopedStand::Create(spec);
  ASSERT_TRUE(up) << up.error().ToString();
  TempDir dir;
  const std::string pid_file = dir.File("server.pid");
  // Started without `stand exec`, as a user's `ip netns exec ... &` would be.
  std::vector<std::string> argv = {"ip", "netns", "exec", "st12d-h2"};
  for (auto& word : SleeperWritingPid(pid_file)) argv.push_back(word);
  testing::BackgroundProcess server(argv);
  const int pid = WaitForPidFile(pid_file);
  ASSERT_GT(pid, 0) << server.StderrSoFar();
  KillAtExit cleanup(pid);

  testing::ProcessResult refused = testing::RunNicbench({"stand", "down", "--name", "st12d"});
  EXPECT_NE(refused.exit_code, 0) << refused.out;
  EXPECT_NE(refused.err.find("pid " + std::to_string(pid) + " in st12d-h2 (sleep 1000)"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.out.find("is down"), std::string::npos) << refused.out;
  EXPECT_FALSE(Gone(pid));
  EXPECT_TRUE(std::filesystem::exists("/run/netns/st12d-h2"));

  testing::ProcessResult forced =
      testing::RunNicbench({"stand", "down", "--name", "st12d", "--force"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(forced.out.find("stopped pid " + std::to_string(pid) + " in st12d-h2"),
            std::string::npos)
      << forced.out;
  // Down returns once the process has ended, not merely been signalled.
  EXPECT_TRUE(Gone(pid));
  EXPECT_FALSE(std::filesystem::exists("/run/netns/st12d-h2"));
  EXPECT_FALSE(std::filesystem::exists("/run/netns/st12d-h1"));
}

}  // namespace
}  // namespace nicbench::regress
