// serve --allow/--deny (docs/security.md): 127.0.0.1 and 127.0.0.2 stand for two client
// addresses (the client binds with -B). A refused client hears ACCESS_DENIED before the server
// reads a byte; the permitted one completes its test meanwhile.
#include <signal.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "regress/hostile_client.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

using testing::ProcessResult;

using testing::RunFrom;

TEST(AccessControl, DenyRefusesOneAddressAndServesTheOther) {
  testing::ServeChild server = testing::StartServe({"--deny", "127.0.0.2/32"});
  ProcessResult refused = RunFrom(server.port, "127.0.0.2");
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("busy"), std::string::npos) << refused.err;
  ProcessResult served = RunFrom(server.port, "127.0.0.1");
  EXPECT_EQ(served.exit_code, 0) << served.out << served.err;
  ProcessResult s = server.process->Stop(SIGTERM);
  EXPECT_NE(s.err.find("refused 127.0.0.2:"), std::string::npos) << s.err;
  EXPECT_NE(s.err.find("not permitted by --allow/--deny"), std::string::npos) << s.err;
  EXPECT_EQ(regress::CountLines(s.err, ": ok,"), 1) << s.err;
}

TEST(AccessControl, AllowServesOnlyItsPrefixAndNothingIsRead) {
  testing::ServeChild server = testing::StartServe({"--allow", "127.0.0.1"});
  // A raw connection from the refused address gets ACCESS_DENIED (0xFF) without sending a byte.
  const int fd = regress::ConnectFrom("127.0.0.2", server.port);
  ASSERT_GE(fd, 0);
  const int state = regress::ReadStateByte(fd);
  EXPECT_TRUE(state == 0xFF || state == -1) << state;
  close(fd);
  ProcessResult served = RunFrom(server.port, "127.0.0.1");
  EXPECT_EQ(served.exit_code, 0) << served.out << served.err;
  server.process->Stop(SIGTERM);
}

TEST(AccessControl, StockClientHearsIperf3sAccessDenied) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  testing::ServeChild server = testing::StartServe({"--allow", "127.0.0.1/32"});
  ProcessResult r =
      testing::RunProcess({"iperf3", "-c", "127.0.0.1", "-p", std::to_string(server.port), "-B",
                           "127.0.0.2", "-n", "1M"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.out + r.err).find("the server is busy running a test"), std::string::npos)
      << r.out << r.err;
  server.process->Stop(SIGTERM);
}

TEST(AccessControl, HourlyLimitCountsTestsPerAddress) {
  testing::ServeChild server = testing::StartServe({"--max-tests-per-client-per-hour", "1"});
  ProcessResult first = RunFrom(server.port, "127.0.0.2");
  EXPECT_EQ(first.exit_code, 0) << first.out << first.err;
  ProcessResult second = RunFrom(server.port, "127.0.0.2");
  EXPECT_EQ(second.exit_code, 1) << second.out << second.err;
  EXPECT_NE(second.err.find("busy"), std::string::npos) << second.err;
  // Another address has its own hour.
  ProcessResult other = RunFrom(server.port, "127.0.0.1");
  EXPECT_EQ(other.exit_code, 0) << other.out << other.err;
  server.process->Stop(SIGTERM);
}

}  // namespace
}  // namespace nicbench
