// The client's part in the measuring loop on a FakeClock, with a socketpair as the control
// connection: live samples in and paired with our intervals, the flood cap, what a stall or a
// stop tells the server.
#include "engine/conversation/client_role.h"

#include <sys/socket.h>

#include <gtest/gtest.h>

#include "engine/conversation/client_errors.h"
#include "protocol/control_channel.h"
#include "record/json.h"

namespace nicbench::engine {
namespace {

using std::chrono::milliseconds;

// A client run over one end of a socketpair; the test plays the server on the other.
struct ClientRoleCase {
  ClientRoleCase() : run(Config()) {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    run.control.Reset(fds[0]);
    server.Reset(fds[1]);
    run.clock = &clock;
    run.data_start = clock.Now();
    run.events = &events;
  }
  static const ClientConfig& Config() {
    static const ClientConfig config = [] {
      ClientConfig c;
      c.spec.interval = std::chrono::seconds(1);
      c.live_samples = true;
      c.control_timeout = milliseconds(1000);
      return c;
    }();
    return config;
  }
  void SendLiveSample(int index) {
    ASSERT_TRUE(protocol::SendState(server.get(), protocol::State::kNicbenchSample));
    ASSERT_TRUE(protocol::SendJson(
        server.get(), nlohmann::json{{"index", index}, {"sample", record::HostInterval{}}}));
  }
  protocol::State ReadFromClient() {
    auto state = protocol::ReadState(server.get(), milliseconds(1000));
    EXPECT_TRUE(state);
    return state ? *state : protocol::State::kTestStart;
  }

  FakeClock clock;
  net::UniqueFd server;
  // Per interval told: whether the server's sample came with it.
  struct Told : ClientEvents {
    void Interval(const record::RunRecord&, const record::IntervalRecord&,
                  const record::HostInterval*, const record::HostInterval* remote) override {
      with_remote.push_back(remote != nullptr);
    }
    std::vector<bool> with_remote;
  } events;
  ClientRun run;
};

TEST(ClientRole, ALiveSampleWaitsForOurIntervalOfTheSameIndex) {
  ClientRoleCase c;
  ClientRole role(c.run);
  c.SendLiveSample(0);
  auto control = role.OnControl(c.clock.Now());
  ASSERT_TRUE(control) << control.error().ToString();
  EXPECT_EQ(*control, MeasureRole::Control::kContinue);
  record::IntervalRecord interval;
  role.OnClosed(&interval, nullptr, false);
  role.OnClosed(&interval, nullptr, false);  // the server's sample of it never came
  EXPECT_EQ(c.events.with_remote, (std::vector<bool>{true, false}));
  EXPECT_TRUE(c.run.remote_live.empty());
}

TEST(ClientRole, MoreLiveSamplesThanTheTestsTimeAllowsAreDropped) {
  ClientRoleCase c;
  ClientRole role(c.run);
  // At the start of the data, the slack of 8 samples; ten arrive.
  for (int k = 0; k < 10; ++k) {
    c.SendLiveSample(k);
    ASSERT_TRUE(role.OnControl(c.clock.Now()));
  }
  EXPECT_EQ(c.run.remote_live.size(), 8u);
  EXPECT_TRUE(c.run.live_warned);
  // Five seconds of test later, five intervals more may have closed at the server.
  c.clock.Advance(std::chrono::seconds(5));
  c.SendLiveSample(10);
  ASSERT_TRUE(role.OnControl(c.clock.Now()));
  EXPECT_EQ(c.run.remote_live.count(10), 1u);
}

TEST(ClientRole, AnyOtherStateDuringTheTestIsAProtocolError) {
  ClientRoleCase c;
  ClientRole role(c.run);
  ASSERT_TRUE(protocol::SendState(c.server.get(), protocol::State::kTestStart));
  auto control = role.OnControl(c.clock.Now());
  ASSERT_FALSE(control);
  EXPECT_EQ(control.error().kind, ErrorKind::kProtocol);
}

TEST(ClientRole, AStallOrAStopTellsTheServerClientTerminate) {
  ClientRoleCase c;
  ClientRole role(c.run);
  Status stalled = role.OnStall(milliseconds(5000));
  ASSERT_FALSE(stalled);
  EXPECT_EQ(stalled.error().kind, ErrorKind::kData);
  EXPECT_EQ(c.ReadFromClient(), protocol::State::kClientTerminate);
  Status stopped = role.OnStop();
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().kind, ErrorKind::kInterrupted);
  EXPECT_EQ(c.ReadFromClient(), protocol::State::kClientTerminate);
}

}  // namespace
}  // namespace nicbench::engine
