// On its default dual-stack listener (`::`, no --bind) the server set IPV6_V6ONLY on every
// accepted data stream, which the kernel refuses after bind (EINVAL): each stream logged
// "data stream options: setsockopt(IPV6_V6ONLY=0): Invalid argument" and, worse, the options
// after it (-w, TOS) were never applied on the server's side.
#include "regress/server_test_util.h"

#include <signal.h>

namespace nicbench::regress {
namespace {

TEST(ServerDualStackStreamOptions, AcceptedStreamsTakeTheirOptions) {
  testing::BackgroundProcess server({testing::NicbenchPath(), "serve", "-p", "0"});
  const int port = testing::ServedPort(server);
  ASSERT_NE(port, 0) << server.StderrSoFar();
  testing::ProcessResult r = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", std::to_string(port), "-t", "1", "-w", "1M", "-P", "2", "-J"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  testing::ProcessResult stopped = server.Stop(SIGTERM);
  EXPECT_EQ(stopped.err.find("IPV6_V6ONLY"), std::string::npos) << stopped.err;
  EXPECT_EQ(stopped.err.find("data stream options"), std::string::npos) << stopped.err;
}

}  // namespace
}  // namespace nicbench::regress
