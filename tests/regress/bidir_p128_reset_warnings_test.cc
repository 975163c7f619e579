// A successful `--bidir -P 128` printed 127 "also: stream N: send: Connection reset by peer /
// Broken pipe" warnings: the server closes every data socket at TEST_END, and the client's
// senders then failed one after the other. After the test those failures are not warnings.
#include "regress/server_test_util.h"

#include <signal.h>

namespace nicbench::regress {
namespace {

TEST(BidirP128ResetWarnings, ASuccessfulTestPrintsNoStreamErrors) {
  ServeChild server = StartServe();
  testing::ProcessResult r =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "--bidir", "-P",
                            "128", "-t", "1", "-J"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("Connection reset"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Broken pipe"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("also:"), std::string::npos) << r.err;
  testing::ProcessResult stopped = server.process->Stop(SIGTERM);
  EXPECT_EQ(stopped.err.find("warning"), std::string::npos) << stopped.err;
}

}  // namespace
}  // namespace nicbench::regress
