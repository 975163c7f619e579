// Process exit codes, shared by every command so scripts can tell failures apart.
#pragma once

namespace nicbench {

enum class ExitCode : int {
  kOk = 0,
  kTestFailed = 1,    // the test ran (or tried to) and failed: peer refused, I/O error
  kUsage = 2,         // bad command line
  kEnvironment = 3,   // the machine cannot do it: needs root, missing kernel feature
  kStore = 4,         // the result store failed: a run not stored, a store not readable
  kNotFound = 5,      // the store holds no such run or experiment (`show 99`)
  kInterrupted = 130  // SIGINT
};

inline int ToInt(ExitCode code) { return static_cast<int>(code); }

}  // namespace nicbench
