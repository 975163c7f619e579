// Putting a stand back after `nicbench matrix` (issue 27, item 11): the offloads read from every
// veth end before the first change are what is set back, whatever the spec's toggles say.
#include "stand/snapshot.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "stand/fake_command_runner.h"

namespace nicbench::stand {
namespace {

// `ethtool -k` of a veth on kernel 6.18 (ethtool 6.1), cut to the lines that matter.
constexpr const char kVethFeatures[] =
    "Features for t-h1-e0:\n"
    "rx-checksumming: on\n"
    "tx-checksumming: on\n"
    "tcp-segmentation-offload: on\n"
    "\ttx-tcp-segmentation: on\n"
    "generic-segmentation-offload: on\n"
    "generic-receive-offload: off\n";

StandInfo Stand() {
  StandInfo info;
  info.spec.name = "t";
  info.spec.profile = Profile::k1000BaseT;
  info.qdiscs.tbf = true;
  return info;
}

std::vector<std::string> Joined(const ChangePlan& plan) {
  std::vector<std::string> lines;
  for (const Argv& argv : plan.commands) lines.push_back(JoinArgv(argv));
  return lines;
}

TEST(StandSnapshot, ReadsEveryEndAndSetsBackWhatItRead) {
  FakeCommandRunner runner;
  runner.Answer({"ip", "netns", "exec"}, {0, kVethFeatures, ""});
  auto before = TakeSnapshot(runner, Stand());
  ASSERT_TRUE(before) << before.error().message;
  ASSERT_EQ(before->offloads.size(), 2u);
  EXPECT_TRUE(runner.Ran({"ip", "netns", "exec", "t-h2", "ethtool", "-k", "t-h2-e0"}));

  StandInfo now = Stand();
  now.spec.offloads.tso = Toggle::kOff;
  now.spec.offloads.gso = Toggle::kOff;
  EXPECT_EQ(
      Joined(BuildRestorePlan(now, *before, false)),
      (std::vector<std::string>{"ip netns exec t-h1 ethtool -K t-h1-e0 tso on gso on gro off",
                                "ip netns exec t-h2 ethtool -K t-h2-e0 tso on gso on gro off"}));
  EXPECT_EQ(DescribeSnapshot(*before), "tso on, gso on, gro off, mtu 1500, profile 1000baseT");
  EXPECT_EQ(DescribeSpec(now.spec), "tso off, gso off, gro default, mtu 1500, profile 1000baseT");
}

TEST(StandSnapshot, ReshapeSetsMtuAndQdiscsBack) {
  FakeCommandRunner runner;
  runner.Answer({"ip", "netns", "exec"}, {0, kVethFeatures, ""});
  auto before = TakeSnapshot(runner, Stand());
  ASSERT_TRUE(before);
  StandInfo now = Stand();
  now.spec.mtu = 9000;
  const std::vector<std::string> plan = Joined(BuildRestorePlan(now, *before, true));
  EXPECT_NE(std::find(plan.begin(), plan.end(), "ip -n t-h1 link set dev t-h1-e0 mtu 1500"),
            plan.end());
  // Reshaped even when the spec already says 1500: the last change may have failed part way.
  const std::vector<std::string> again = Joined(BuildRestorePlan(Stand(), *before, true));
  EXPECT_NE(std::find(again.begin(), again.end(), "ip -n t-h2 link set dev t-h2-e0 mtu 1500"),
            again.end());
  EXPECT_EQ(Joined(BuildRestorePlan(Stand(), *before, false)).size(), 2u);
}

TEST(StandSnapshot, AnEndThatDoesNotReadIsNamed) {
  FakeCommandRunner runner;
  runner.Answer({"ip", "netns", "exec", "t-h2"}, {1, "", "Cannot open network namespace\n"});
  auto before = TakeSnapshot(runner, Stand());
  ASSERT_FALSE(before);
  EXPECT_NE(before.error().message.find("t-h2-e0 in t-h2"), std::string::npos)
      << before.error().message;
}

}  // namespace
}  // namespace nicbench::stand
