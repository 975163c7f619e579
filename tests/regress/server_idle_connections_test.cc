// 200 idle control connections (a port scan, a connection flood) neither take test slots nor
// stop the server: normal tests complete while they are open, and they are closed later.
#include "regress/server_test_util.h"

namespace nicbench::regress {
namespace {

TEST(ServerIdleConnections, TwoHundredIdleConnectionsDoNotBlockTests) {
  ServeChild server = StartServe({"--max-tests", "1"});
  std::vector<int> idle;
  for (int i = 0; i < 200; ++i) {
    int fd = ConnectRaw(server.port);
    ASSERT_GE(fd, 0) << "connection " << i;
    idle.push_back(fd);
  }
  for (int i = 0; i < 2; ++i) {
    auto doc = NormalTest(server.port);
    EXPECT_EQ(SumBytes(doc, "sum_sent"), 1048576u);
  }
  for (int fd : idle) close(fd);
  NormalTest(server.port);
}

}  // namespace
}  // namespace nicbench::regress
