// Child processes of `nicbench matrix` (each test run, the user's --setup/--teardown commands)
// and how an interrupt reaches the matrix: SIGINT/SIGTERM are blocked in the matrix process,
// so a Ctrl-C stops the child that is running (it gets the default disposition back) and is
// seen by the matrix as a pending signal once the child has ended.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace nicbench::cli {

// Blocks SIGINT and SIGTERM in this thread (call before any thread starts).
void BlockInterrupts();
// True when SIGINT or SIGTERM arrived since BlockInterrupts; consumes it.
bool TakeInterrupt();

enum class ChildStdout { kInherit, kToStderr, kDiscard };

// Runs argv (argv[0] a path or a name searched in PATH) with the signals unblocked and their
// default dispositions, waits for it and returns its exit status (128 + signal when killed).
Result<int> RunChild(const std::vector<std::string>& argv, ChildStdout out);

// The running binary, for children that must be exactly this nicbench.
std::string SelfPath();

}  // namespace nicbench::cli
