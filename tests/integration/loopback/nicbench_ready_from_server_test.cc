// NICBENCH_READY (state byte 102) is a message from the network like any other: a fake server
// over raw sockets answers the parameters with it and then with something other than
// CREATE_STREAMS, and `nicbench run` must end with a clear error and exit code 1, not wait or
// go on.
#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "net/socket.h"
#include "protocol/control_channel.h"
#include "protocol/wire.h"
#include "support/run_binary.h"

namespace nicbench::protocol {
namespace {

using namespace std::chrono_literals;

// Plays a nicbench server through the parameters (which must ask for the announcement), then
// sends NICBENCH_READY and `next`, and waits until the client goes.
void ServerUpTo(int listen_fd, State next) {
  pollfd p{listen_fd, POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 10000), 1);
  auto control = net::Accept(listen_fd);
  ASSERT_TRUE(control);
  ASSERT_TRUE(net::SetNonBlocking(control->get(), false));
  ASSERT_TRUE(ReadCookie(control->get(), 10s));
  ASSERT_TRUE(SendState(control->get(), State::kParamExchange));
  auto params = ReadJson(control->get(), 10s, kMaxParamsBytes, "parameters");
  ASSERT_TRUE(params);
  ASSERT_TRUE((*params)["nicbench"].value("announce", false)) << params->dump();
  ASSERT_TRUE(SendState(control->get(), State::kNicbenchReady));
  ASSERT_TRUE(SendState(control->get(), next));
  char byte;
  pollfd c{control->get(), POLLIN, 0};
  while (poll(&c, 1, 20000) == 1 && recv(control->get(), &byte, 1, 0) > 0) {
  }
}

void ExpectProtocolError(State next) {
  SCOPED_TRACE(StateName(next));
  auto listener = net::Listen(*net::SocketAddress::FromNumeric("127.0.0.1", 0), 4, {});
  ASSERT_TRUE(listener);
  const int port = net::SocketAddress::Local(listener->get())->port();
  std::thread server(ServerUpTo, listener->get(), next);
  testing::ProcessResult r = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", std::to_string(port), "-t", "1", "--no-store", "-d"});
  server.join();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("out of turn while setting up the test"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected CREATE_STREAMS from the server, got " + StateName(next)),
            std::string::npos)
      << r.err;
}

TEST(NicbenchReadyFromServer, AnythingButCreateStreamsAfterItEndsTheTestWithAClearError) {
  ExpectProtocolError(State::kNicbenchReady);  // twice
  ExpectProtocolError(State::kTestStart);
}

}  // namespace
}  // namespace nicbench::protocol
