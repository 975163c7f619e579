// A test at TEST_RUNNING that never sent a byte held its slot for the whole --rcv-timeout
// (120 s by default): four such tests, renewed, blocked everyone for 121 s each time. Now a test
// that has not moved its first byte ends after 10 s (or --rcv-timeout when shorter) with
// IENOMSG, and a test that moved data keeps the full --rcv-timeout.
#include "regress/hostile_client.h"

namespace nicbench::regress {
namespace {

TEST(ServerTestWithoutData, ATestThatNeverMovesAByteEndsWellBeforeTheReceiveTimeout) {
  // The default --rcv-timeout of 120 s: the wait below (60 s) is a safety net the old server
  // always reached.
  ServeChild server = StartServe();
  const std::string cookie = MakeCookie(3);
  int control = OpenTest(server.port, cookie,
                         R"({"tcp":true,"omit":0,"time":300,"num":0,"blockcount":0,"parallel":1,)"
                         R"("len":131072,"pacing_timer":1000,"client_version":"3.12"})",
                         "127.0.0.2");
  ASSERT_GE(control, 0);
  ASSERT_EQ(ReadStateByte(control), 10);
  std::vector<int> streams = OpenStreams(server.port, cookie, 1, "127.0.0.2");
  ASSERT_EQ(ReadStateByte(control), 1);
  ASSERT_EQ(ReadStateByte(control), 2);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(ReadStateByte(control, 60000), -2) << "the silent test still held its slot";
  EXPECT_EQ(ReadInt32(control), 144) << "IENOMSG: idle timeout for receiving data";
  std::printf("a test that sent nothing ended after %.1f s (--rcv-timeout 120 s)\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  CloseAll(streams);
  close(control);
  NormalTest(server.port);
}

}  // namespace
}  // namespace nicbench::regress
