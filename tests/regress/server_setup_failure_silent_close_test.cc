// A failed set-up closed the connection without telling the client why: under load, multi-
// stream tests that missed the set-up deadline ended with "connection closed by the peer". Now
// the server sends iperf3's error state (SERVER_ERROR with IESTREAMACCEPT or IERECVPARAMS and
// ETIMEDOUT) before it closes, so a stock client prints iperf3's sentence, and a nicbench client
// our words; the deadline grows with the number of streams.
#include "regress/hostile_client.h"

#include <cerrno>

namespace nicbench::regress {
namespace {

constexpr char kFourStreams[] =
    R"({"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":4,"len":131072,)"
    R"("pacing_timer":1000,"client_version":"3.12"})";

TEST(ServerSetUpFailure, MissingStreamsAndSilentParametersAreToldBeforeTheClose) {
  ServeChild server = StartServe();

  // Four streams asked for, one connected: the set-up deadline passes.
  int control = OpenTest(server.port, MakeCookie(7), kFourStreams);
  ASSERT_GE(control, 0);
  ASSERT_EQ(ReadStateByte(control), 10);  // CREATE_STREAMS
  std::vector<int> streams = OpenStreams(server.port, MakeCookie(7), 1);
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(ReadStateByte(control, 30000), -2) << "closed without SERVER_ERROR";  // SERVER_ERROR
  EXPECT_EQ(ReadInt32(control), 204) << "IESTREAMACCEPT";
  EXPECT_EQ(ReadInt32(control), ETIMEDOUT);
  EXPECT_TRUE(ServerCloses(control));
  close(control);
  CloseAll(streams);

  // A cookie, then no parameters at all.
  int silent = ConnectRaw(server.port);
  ASSERT_GE(silent, 0);
  const std::string cookie = MakeCookie(8);
  ASSERT_TRUE(SendAll(silent, cookie.data(), cookie.size()));
  ASSERT_EQ(ReadStateByte(silent), 9);  // PARAM_EXCHANGE
  EXPECT_EQ(ReadStateByte(silent, 30000), -2) << "closed without SERVER_ERROR";
  EXPECT_EQ(ReadInt32(silent), 114) << "IERECVPARAMS";
  EXPECT_EQ(ReadInt32(silent), ETIMEDOUT);
  close(silent);

  // The server keeps serving.
  auto doc = NormalTest(server.port);
  EXPECT_EQ(SumBytes(doc, "sum_received"), 1048576u);
}

}  // namespace
}  // namespace nicbench::regress
