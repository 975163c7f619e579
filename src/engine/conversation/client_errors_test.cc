#include "engine/conversation/client_errors.h"

#include <cerrno>

#include <gtest/gtest.h>

namespace nicbench::engine {
namespace {

Error Protocol(std::string message, int sys_errno = 0) {
  return Error{std::move(message), sys_errno, ErrorKind::kProtocol};
}

TEST(ClientErrors, PeerClosedIsSaidWithThePhase) {
  UserError told = InUserTerms(
      Protocol("reading a state byte before EXCHANGE_RESULTS: connection closed by the peer"),
      ClientPhase::kResults);
  EXPECT_EQ(told.error.message,
            "the server closed the connection after the test, before sending its results");
  EXPECT_EQ(told.error.kind, ErrorKind::kProtocol);
  EXPECT_NE(told.detail.find("EXCHANGE_RESULTS"), std::string::npos);
}

TEST(ClientErrors, ResetAndTimeoutAndOutOfTurn) {
  EXPECT_EQ(
      InUserTerms(Protocol("reading a state byte during the test", ECONNRESET), ClientPhase::kTest)
          .error.message,
      "the server closed the connection during the test");
  EXPECT_EQ(InUserTerms(Protocol("reading a state byte before PARAM_EXCHANGE: timed out after "
                                 "5000 ms"),
                        ClientPhase::kSetup)
                .error.message,
            "the server stopped answering while setting up the test");
  EXPECT_EQ(InUserTerms(Protocol("expected CREATE_STREAMS from the server, got TEST_START"),
                        ClientPhase::kSetup)
                .error.message,
            "the server said something out of turn while setting up the test");
}

TEST(ClientErrors, PlainErrorsAreLeftAlone) {
  const Error busy{"the server is busy running a test. try again later", 0, ErrorKind::kBusy};
  UserError told = InUserTerms(busy, ClientPhase::kSetup);
  EXPECT_EQ(told.error.message, busy.message);
  EXPECT_TRUE(told.detail.empty());
  EXPECT_EQ(InUserTerms(Protocol("the server has terminated"), ClientPhase::kTest).error.message,
            "the server has terminated");
}

}  // namespace
}  // namespace nicbench::engine
