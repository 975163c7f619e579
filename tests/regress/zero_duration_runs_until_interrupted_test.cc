// Bug: `-t 0` was refused ("a test needs a duration, a byte count or a block count") where
// iperf3 runs until interrupted. It now runs until SIGINT and still prints what it measured.
#include <signal.h>

#include <string>

#include <gtest/gtest.h>

#include "server_test_util.h"

namespace nicbench::regress {
namespace {

TEST(ZeroDurationRunsUntilInterrupted, SigintEndsItWithTheResults) {
  ServeChild serve = StartServe();
  testing::BackgroundProcess client({testing::NicbenchPath(), "run", "127.0.0.1", "-p",
                                     std::to_string(serve.port), "-t", "0", "-i", "0.2", "-b",
                                     "100M"});
  // A few intervals closed: the test is running and has not ended by itself at 0 s.
  ASSERT_TRUE(client.WaitForOutput("0.60-0.80", std::chrono::seconds(60)))
      << client.StdoutSoFar() << client.StderrSoFar();
  testing::ProcessResult r = client.Stop(SIGINT);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.out.find(" sender"), std::string::npos) << r.out;
}

TEST(ZeroDurationRunsUntilInterrupted, TheJsonSaysDurationZeroAsIperf3Does) {
  ServeChild serve = StartServe();
  testing::BackgroundProcess client({testing::NicbenchPath(), "run", "127.0.0.1", "-p",
                                     std::to_string(serve.port), "-t", "0", "-i", "0.2", "-b",
                                     "100M", "--json-stream"});
  ASSERT_TRUE(client.WaitForOutput("\"interval\"", std::chrono::seconds(60)))
      << client.StdoutSoFar() << client.StderrSoFar();
  testing::ProcessResult r = client.Stop(SIGINT);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.out.find("\"duration\":0"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace nicbench::regress
