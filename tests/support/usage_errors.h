// Test support: bad values of a command's options, each of which must be refused before anything
// runs with exit code 2 and a message that says what is wrong.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace nicbench::testing {

struct UsageCase {
  std::vector<std::string> args;
  std::string message;  // a part of what stderr must say
};

// Runs `nicbench COMMAND... CASE.args...` for each case.
inline void ExpectUsageErrors(const std::vector<std::string>& command,
                              const std::vector<UsageCase>& cases) {
  for (const UsageCase& c : cases) {
    std::vector<std::string> args = command;
    args.insert(args.end(), c.args.begin(), c.args.end());
    ProcessResult r = RunNicbench(args);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_EQ(r.exit_code, 2) << joined << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << joined << ": " << r.err;
  }
}

}  // namespace nicbench::testing
