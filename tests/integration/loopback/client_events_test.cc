// engine::ClientEvents as a client tells them: the streams connected once, then each closed
// interval, and a server sample for an interval already told as a late sample of its own. A
// fake server over raw sockets sends its sample of interval 0 only after TEST_END, when every
// interval of the client has closed, so "late" needs no timing.
#include <poll.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/client.h"
#include "net/socket.h"
#include "protocol/control_channel.h"
#include "protocol/wire.h"
#include "record/json.h"
#include "support/accept.h"

namespace nicbench::client_events_test {
namespace {

using namespace std::chrono_literals;
using protocol::State;

// Plays a nicbench server through the test; after the client's TEST_END it sends its sample of
// interval 0, then ends the conversation (SERVER_TERMINATE).
void LateSampleServer(int listen_fd) {
  net::UniqueFd control = testing::AcceptBlocking(listen_fd);
  ASSERT_TRUE(control);
  ASSERT_TRUE(protocol::ReadCookie(control.get(), 10s));
  ASSERT_TRUE(protocol::SendState(control.get(), State::kParamExchange));
  ASSERT_TRUE(protocol::ReadJson(control.get(), 10s, protocol::kMaxParamsBytes, "parameters"));
  ASSERT_TRUE(protocol::SendState(control.get(), State::kCreateStreams));
  net::UniqueFd data = testing::AcceptBlocking(listen_fd);
  ASSERT_TRUE(data);
  ASSERT_TRUE(protocol::ReadCookie(data.get(), 10s));
  ASSERT_TRUE(protocol::SendState(control.get(), State::kTestStart));
  ASSERT_TRUE(protocol::SendState(control.get(), State::kTestRunning));
  auto state = protocol::ReadState(control.get(), 20s, "TEST_END");
  ASSERT_TRUE(state);
  ASSERT_EQ(*state, State::kTestEnd);
  record::HostInterval sample;
  sample.start = 0;
  sample.end = 0.1;
  ASSERT_TRUE(protocol::SendState(control.get(), State::kNicbenchSample));
  ASSERT_TRUE(protocol::SendJson(control.get(), nlohmann::json{{"index", 0}, {"sample", sample}}));
  ASSERT_TRUE(protocol::SendState(control.get(), State::kServerTerminate));
}

class OrderOfEvents final : public engine::ClientEvents {
 public:
  void Connected(const record::RunRecord&) override { order += 'C'; }
  void Interval(const record::RunRecord&, const record::IntervalRecord&,
                const record::HostInterval*, const record::HostInterval*) override {
    order += 'I';
  }
  void LateRemoteSample(const record::RunRecord&, const record::HostInterval& remote) override {
    order += 'L';
    late_end = remote.end;
  }
  std::string order;
  double late_end = 0;
};

TEST(ClientEvents, ConnectedThenIntervalsThenALateServerSample) {
  auto listener = net::Listen(*net::SocketAddress::FromNumeric("127.0.0.1", 0), 4, {});
  ASSERT_TRUE(listener);
  std::thread server(LateSampleServer, listener->get());
  engine::ClientConfig config;
  config.host = "127.0.0.1";
  config.port = static_cast<uint16_t>(net::SocketAddress::Local(listener->get())->port());
  config.spec.duration = 300ms;
  config.spec.interval = 100ms;
  config.live_samples = true;
  OrderOfEvents events;
  const engine::ClientOutcome outcome = engine::RunClient(config, events);
  server.join();
  EXPECT_FALSE(outcome.ok()) << "the fake server ends the conversation after its sample";
  ASSERT_GE(events.order.size(), 3u) << events.order;
  EXPECT_EQ(events.order.front(), 'C');
  EXPECT_EQ(events.order.back(), 'L');
  EXPECT_EQ(events.order.substr(1, events.order.size() - 2),
            std::string(events.order.size() - 2, 'I'));
  EXPECT_DOUBLE_EQ(events.late_end, 0.1);
}

}  // namespace
}  // namespace nicbench::client_events_test
