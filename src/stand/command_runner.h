// The process seam of the stand: everything the stand does to the kernel goes through `ip`,
// `tc` and `ethtool` child processes run by a CommandRunner. ProcessRunner is the real one
// (fork/exec, no shell, argv as a vector); tests replace it with FakeCommandRunner
// (fake_command_runner.h). A runner is used by one thread at a time.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/result.h"

namespace nicbench::stand {

using Argv = std::vector<std::string>;

struct CommandOutput {
  int exit_code = 0;  // 128 + signal number when the child was killed by a signal
  std::string out;
  std::string err;
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Runs argv[0] (searched in PATH) to completion and collects its output. An error only when
  // the child could not be started at all (program missing) or had to be killed; a non-zero
  // exit is a normal CommandOutput.
  virtual Result<CommandOutput> Run(const Argv& argv) = 0;
};

class ProcessRunner final : public CommandRunner {
 public:
  // A child still running after `limit` is killed: ip/tc/ethtool finish in milliseconds, so a
  // hang means something is wrong and must not hang `nicbench stand` with it.
  explicit ProcessRunner(std::chrono::seconds limit = std::chrono::seconds(60)) : limit_(limit) {}
  Result<CommandOutput> Run(const Argv& argv) override;

 private:
  std::chrono::seconds limit_;
};

// Runs argv with this process's stdin/stdout/stderr and returns its exit code (128 + signal
// when killed). For `stand exec`, where the command talks to the user directly. The child does
// not outlive this process: SIGINT, SIGTERM and SIGHUP sent to this process are passed on to
// it (while it runs, this process does not die of them but returns the child's exit), and
// when this process dies anyway (SIGKILL, a crash) the kernel kills the child with SIGKILL
// (PR_SET_PDEATHSIG). Its own children are its business. REQUIRES: called from a thread that
// lives until the call returns (the death signal follows the forking thread).
Result<int> RunInheritingStdio(const Argv& argv);

// "ip netns exec nb-h1 ethtool -k x" style text of an argv, for messages.
std::string JoinArgv(const Argv& argv);

}  // namespace nicbench::stand
