// run --under-load: bad values of its options and tests the probes cannot run beside, each a
// clear message and exit code 2 before any connection is made (port 1: nobody listens).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_binary.h"
#include "support/usage_errors.h"

namespace nicbench {
namespace {

TEST(UnderLoadCli, BadValuesAreUsageErrors) {
  const std::vector<testing::UsageCase> cases = {
      {{"--under-load", "--probe-rate", "0"}, "--probe-rate 0: expected 2..1000"},
      {{"--under-load", "--probe-rate", "1"}, "--probe-rate 1: expected 2..1000"},
      {{"--under-load", "--probe-rate", "5000"}, "--probe-rate 5000: expected 2..1000"},
      {{"--under-load", "--probe-rate", "lots"}, "--probe-rate lots"},
      {{"--under-load", "--idle-time", "0"}, "--idle-time 0: expected 1..60 seconds"},
      {{"--under-load", "--idle-time", "-3"}, "--idle-time -3"},
      {{"--under-load", "--idle-time", "61"}, "--idle-time 61: expected 1..60 seconds"},
      {{"--under-load", "-t", "5", "--idle-time", "8"}, "is longer than the test"},
      {{"--under-load", "-n", "1M"}, "--under-load needs a timed test (-t)"},
      {{"--under-load", "-k", "100"}, "--under-load needs a timed test (-t)"},
      {{"--under-load", "--rr"}, "not --rr/--crr"},
      {{"--probe-rate", "100"}, "need --under-load"},
      {{"--idle-time", "2"}, "need --under-load"},
  };
  // Port 1: nobody listens, and nothing may be tried anyway.
  testing::ExpectUsageErrors({"run", "127.0.0.1", "-p", "1"}, cases);
}

TEST(UnderLoadCli, HelpNamesTheOptions) {
  testing::ProcessResult r = testing::RunNicbench({"run", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--under-load", "--probe-rate", "--idle-time"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
  testing::ProcessResult s = testing::RunNicbench({"stand", "up", "--help"});
  EXPECT_NE(s.out.find("--queue-limit"), std::string::npos) << s.out;
}

}  // namespace
}  // namespace nicbench
