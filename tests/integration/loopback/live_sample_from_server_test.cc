// A live sample (state byte 100 + JSON) is a message from the network like any other: a fake
// server over raw sockets sends a malformed one in the middle of a test, and `nicbench run`
// must end with a clear error and exit code 1, not crash or hang.
#include <poll.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "net/socket.h"
#include "protocol/control_channel.h"
#include "protocol/wire.h"
#include "support/accept.h"
#include "support/run_binary.h"

namespace nicbench::protocol {
namespace {

using namespace std::chrono_literals;

// Plays a nicbench server up to TEST_RUNNING, then sends `message` as a live sample and keeps
// the connections open until the client goes.
void FakeServer(int listen_fd, const std::string& message) {
  net::UniqueFd control = testing::AcceptBlocking(listen_fd);
  ASSERT_TRUE(control);
  ASSERT_TRUE(ReadCookie(control.get(), 10s));
  ASSERT_TRUE(SendState(control.get(), State::kParamExchange));
  auto params = ReadJson(control.get(), 10s, kMaxParamsBytes, "parameters");
  ASSERT_TRUE(params);
  ASSERT_TRUE((*params)["nicbench"].value("live_samples", false)) << params->dump();
  ASSERT_TRUE(SendState(control.get(), State::kCreateStreams));
  net::UniqueFd data = testing::AcceptBlocking(listen_fd);
  ASSERT_TRUE(data);
  ASSERT_TRUE(ReadCookie(data.get(), 10s));
  ASSERT_TRUE(SendState(control.get(), State::kTestStart));
  // The sample follows TEST_RUNNING on the same stream, so the client reads it while it runs
  // the test, whenever it gets to it: no wait needed to land it "in the middle".
  ASSERT_TRUE(SendState(control.get(), State::kTestRunning));
  ASSERT_TRUE(SendState(control.get(), State::kNicbenchSample));
  ASSERT_TRUE(SendJson(control.get(), nlohmann::json::parse(message)));
  // Until the client closes the control connection (it must, after the bad message).
  char byte;
  pollfd p{control.get(), POLLIN, 0};
  while (poll(&p, 1, 20000) == 1 && recv(control.get(), &byte, 1, 0) > 0) {
  }
}

void ExpectRefused(const std::string& message) {
  SCOPED_TRACE(message);
  auto listener = net::Listen(*net::SocketAddress::FromNumeric("127.0.0.1", 0), 4, {});
  ASSERT_TRUE(listener);
  const int port = net::SocketAddress::Local(listener->get())->port();
  std::thread server(FakeServer, listener->get(), message);
  testing::ProcessResult r =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(port), "-t", "3", "-d"});
  server.join();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // In the user's terms first; the protocol's account (-d) names the bad sample.
  EXPECT_NE(r.err.find("out of turn during the test"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("live sample"), std::string::npos) << r.err;
}

TEST(LiveSampleFromServer, MalformedSamplesEndTheTestWithAClearError) {
  ExpectRefused(R"({"index": "zero", "sample": {}})");
  ExpectRefused(R"({"sample": {}})");
  ExpectRefused(R"({"index": 0, "sample": {"start": "soon"}})");
}

}  // namespace
}  // namespace nicbench::protocol
