// CVE-2023-7250 class: a client that connects and stalls (before or after the cookie) must not
// hold the server: its connection is closed after the set-up timeout and other tests run
// meanwhile. The stalled clients come from another address than the normal one (one address
// may not hold every slot).
#include "regress/hostile_client.h"

namespace nicbench::regress {
namespace {

TEST(ServerStalledCookie, StalledClientsDoNotBlockTests) {
  ServeChild server = StartServe({"--max-tests", "2"});
  int before_cookie = ConnectFrom("127.0.0.2", server.port);
  int half_cookie = ConnectFrom("127.0.0.2", server.port);
  int after_cookie = ConnectFrom("127.0.0.2", server.port);
  ASSERT_GE(before_cookie, 0);
  ASSERT_TRUE(SendAll(half_cookie, kCookie, 10));
  std::string full(kCookie, 36);
  full.push_back('\0');
  ASSERT_TRUE(SendAll(after_cookie, full.data(), full.size()));
  for (int i = 0; i < 3; ++i) {
    auto doc = NormalTest(server.port);
    EXPECT_EQ(SumBytes(doc, "sum_sent"), 1048576u);
  }
  EXPECT_TRUE(ServerCloses(before_cookie));
  EXPECT_TRUE(ServerCloses(half_cookie));
  EXPECT_TRUE(ServerCloses(after_cookie));  // PARAM_EXCHANGE, then the params read times out
  close(before_cookie);
  close(half_cookie);
  close(after_cookie);
  NormalTest(server.port);
}

}  // namespace
}  // namespace nicbench::regress
