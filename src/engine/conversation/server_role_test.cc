// The server's part in the measuring loop on a FakeClock, with a socketpair as the control
// connection and a teller that records what the role says to the client.
#include "engine/conversation/server_role.h"

#include <sys/socket.h>

#include <gtest/gtest.h>

#include "net/unique_fd.h"
#include "protocol/control_channel.h"

namespace nicbench::engine {
namespace {

using std::chrono::milliseconds;

struct Told {
  int i_errno = 0;
  int sys_errno = 0;
  std::string why;
};

class RecordingTeller final : public ServerTeller {
 public:
  std::vector<Told> told;
  int live_samples = 0;
  void TellError(int i_errno, int sys_errno) override { told.push_back({i_errno, sys_errno, ""}); }
  Status Refuse(int i_errno, const std::string& why) override {
    told.push_back({i_errno, 0, why});
    return Fail(why);
  }
  void SendLiveSample() override { ++live_samples; }
};

// A server role over one end of a socketpair; the test plays the client on the other.
struct ServerRoleCase {
  explicit ServerRoleCase(uint64_t rate_limit = 0) {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    server.Reset(fds[0]);
    client.Reset(fds[1]);
    config.control_fd = server.get();
    config.control_timeout = milliseconds(1000);
    config.total_rate_limit_bits_per_second = rate_limit;
    config.total_rate_window = std::chrono::seconds(1);
    run.clock = &clock;
  }
  FakeClock clock;
  net::UniqueFd server, client;
  ServerRoleConfig config;
  EndRun run;
  RecordingTeller teller;
};

TEST(ServerRole, TestEndEndsTheTestAndClientTerminateFailsIt) {
  ServerRoleCase c;
  ServerRole role(c.run, c.config, c.teller);
  ASSERT_TRUE(protocol::SendState(c.client.get(), protocol::State::kTestEnd));
  auto ended = role.OnControl(c.clock.Now());
  ASSERT_TRUE(ended) << ended.error().ToString();
  EXPECT_EQ(*ended, MeasureRole::Control::kPeerEnded);
  ASSERT_TRUE(protocol::SendState(c.client.get(), protocol::State::kClientTerminate));
  auto terminated = role.OnControl(c.clock.Now());
  ASSERT_FALSE(terminated);
  EXPECT_EQ(terminated.error().message, "the client has terminated");
  c.client.Reset();
  EXPECT_FALSE(role.OnControl(c.clock.Now())) << "a closed connection fails the test";
}

TEST(ServerRole, AStallAndTheSafetyTimerAreToldToTheClient) {
  ServerRoleCase c;
  ServerRole role(c.run, c.config, c.teller);
  EXPECT_FALSE(role.OnStall(milliseconds(120000)));
  EXPECT_FALSE(role.OnGiveUp());
  ASSERT_EQ(c.teller.told.size(), 2u);
  EXPECT_EQ(c.teller.told[0].i_errno, protocol::iperf_errno::kNoMsg);
  EXPECT_EQ(c.teller.told[1].i_errno, protocol::iperf_errno::kServerTerm);
  EXPECT_EQ(c.teller.told[1].sys_errno, ETIMEDOUT);
  EXPECT_FALSE(role.OnStop());
  EXPECT_EQ(c.teller.told.size(), 2u) << "a server stopping tells the client elsewhere";
}

TEST(ServerRole, TheTotalRateIsCheckedAtEachBoundaryOnTheLoopsClock) {
  ServerRoleCase c(/*rate_limit=*/8'000'000);
  ServerRole role(c.run, c.config, c.teller);
  FlowCounters flow;
  flow.id = 1;
  EXPECT_TRUE(role.AtBoundary(c.clock.Now(), {flow}));
  c.clock.Advance(milliseconds(1000));
  flow.bytes = 900'000;  // 7.2 Mbit/s
  EXPECT_TRUE(role.AtBoundary(c.clock.Now(), {flow}));
  c.clock.Advance(milliseconds(1000));
  flow.bytes = 3'000'000;  // 16.8 Mbit/s over the last second
  EXPECT_FALSE(role.AtBoundary(c.clock.Now(), {flow}));
  ASSERT_EQ(c.teller.told.size(), 1u);
  EXPECT_EQ(c.teller.told[0].i_errno, protocol::iperf_errno::kTotalRate);
}

TEST(ServerRole, LiveSamplesForEveryKeptIntervalButTheLast) {
  ServerRoleCase c;
  ServerRole role(c.run, c.config, c.teller);
  record::IntervalRecord interval;
  role.OnClosed(&interval, nullptr, /*last=*/false);
  role.OnClosed(nullptr, nullptr, /*last=*/false);   // a final sliver, not kept
  role.OnClosed(&interval, nullptr, /*last=*/true);  // travels with the results
  EXPECT_EQ(c.teller.live_samples, 1);
  EXPECT_TRUE(role.OnWake()) << "no -F file: nothing to check";
}

}  // namespace
}  // namespace nicbench::engine
