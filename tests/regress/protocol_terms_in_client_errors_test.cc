// Bug: a server that closed the connection at the end of a test made the client say
// "reading a state byte before EXCHANGE_RESULTS: connection closed by the peer": the protocol's
// words, not what happened. The client now says "the server closed the connection after the
// test, before sending its results", and -d/--debug adds the protocol's account.
#include <poll.h>

#include <string>
#include <thread>
#include <vector>

#include "regress/hostile_client.h"

namespace nicbench::regress {
namespace {

// Plays a stock server up to TEST_RUNNING, drains the data until the client's TEST_END, then
// closes everything instead of asking for the results.
void ServerThatHangsUpAtTheEnd(int listener) {
  int control = accept(listener, nullptr, nullptr);
  char cookie[37];
  recv(control, cookie, sizeof cookie, MSG_WAITALL);
  const char param_exchange = 9;
  SendAll(control, &param_exchange, 1);
  const int length = ReadInt32(control);
  std::string params(static_cast<size_t>(std::max(length, 0)), '\0');
  recv(control, params.data(), params.size(), MSG_WAITALL);
  const char create_streams = 10;
  SendAll(control, &create_streams, 1);
  int stream = accept(listener, nullptr, nullptr);
  recv(stream, cookie, sizeof cookie, MSG_WAITALL);
  const char running[2] = {1, 2};
  SendAll(control, running, 2);
  std::vector<char> sink(1 << 16);
  for (;;) {
    pollfd fds[2] = {{control, POLLIN, 0}, {stream, POLLIN, 0}};
    if (poll(fds, 2, 30000) <= 0) break;
    if (fds[1].revents != 0 && recv(stream, sink.data(), sink.size(), 0) <= 0) break;
    if (fds[0].revents != 0) break;  // TEST_END (or the client gone)
  }
  close(stream);
  close(control);
}

testing::ProcessResult RunAgainstHangUp(const std::vector<std::string>& extra) {
  int port = 0;
  int listener = ListenLoopback(&port);
  std::thread server([listener] { ServerThatHangsUpAtTheEnd(listener); });
  std::vector<std::string> args = {"run", "127.0.0.1", "-p", std::to_string(port), "-t", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  testing::ProcessResult r = testing::RunNicbench(args);
  server.join();
  close(listener);
  return r;
}

TEST(ProtocolTermsInClientErrors, HangUpBeforeTheResultsIsSaidInUserTerms) {
  testing::ProcessResult r = RunAgainstHangUp({});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("the server closed the connection after the test"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("state byte"), std::string::npos) << r.err;
}

TEST(ProtocolTermsInClientErrors, DebugKeepsTheProtocolDetail) {
  testing::ProcessResult r = RunAgainstHangUp({"-d"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("the server closed the connection after the test"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("EXCHANGE_RESULTS"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nicbench::regress
