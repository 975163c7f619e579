#include "stand/change.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "stand/fake_command_runner.h"

namespace nicbench::stand {
namespace {

StandInfo Current() {
  StandInfo info;
  info.spec.name = "cmp";
  info.spec.profile = Profile::kUnlimited;
  info.qdiscs.tbf = true;
  return info;
}

bool Has(const ChangePlan& plan, const std::string& text) {
  for (const Argv& argv : plan.commands) {
    if (JoinArgv(argv).find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(StandChange, OffloadToggleOnlyRunsEthtool) {
  StandSpec wanted = Current().spec;
  wanted.offloads.tso = Toggle::kOff;
  ChangePlan plan = BuildChangePlan(Current(), wanted);
  ASSERT_EQ(plan.commands.size(), 2u);  // both veth ends
  EXPECT_TRUE(Has(plan, "ip netns exec cmp-h1 ethtool -K cmp-h1-e0 tso off"));
  EXPECT_TRUE(Has(plan, "ip netns exec cmp-h2 ethtool -K cmp-h2-e0 tso off"));
  EXPECT_TRUE(BuildChangePlan(Current(), Current().spec).commands.empty());
}

TEST(StandChange, MtuOrProfileReshapesEveryEnd) {
  StandSpec wanted = Current().spec;
  wanted.mtu = 9000;
  wanted.profile = Profile::k1000BaseT;
  ChangePlan plan = BuildChangePlan(Current(), wanted);
  EXPECT_TRUE(Has(plan, "tc -n cmp-h1 qdisc del dev cmp-h1-e0 root"));
  EXPECT_TRUE(Has(plan, "ip -n cmp-h2 link set dev cmp-h2-e0 mtu 9000"));
  EXPECT_TRUE(Has(plan, "tbf"));
  EXPECT_TRUE(plan.may_fail[0]);
  EXPECT_FALSE(plan.may_fail[1]);
}

TEST(StandChange, QueueKindReplacesEveryEndsRoot) {
  StandSpec wanted = Current().spec;
  wanted.queue = QueueKind::kFqCodel;
  ChangePlan plan = BuildChangePlan(Current(), wanted);
  EXPECT_TRUE(Has(plan, "tc -n cmp-h1 qdisc del dev cmp-h1-e0 root"));
  EXPECT_TRUE(Has(plan, "tc -n cmp-h2 qdisc add dev cmp-h2-e0 root handle 1: fq_codel"));
}

TEST(StandChange, ApplyStopsAtTheFirstRealFailure) {
  StandSpec wanted = Current().spec;
  wanted.mtu = 9000;
  ChangePlan plan = BuildChangePlan(Current(), wanted);
  FakeCommandRunner runner;
  for (const char* ns : {"cmp-h1", "cmp-h2"}) {
    runner.Answer({"tc", "-n", ns, "qdisc", "del"},
                  {2, "", "Error: Cannot delete qdisc with handle of zero.\n"});
  }
  EXPECT_TRUE(ApplyChange(runner, plan));
  runner.Answer({"ip", "-n", "cmp-h2", "link", "set", "dev", "cmp-h2-e0", "mtu"},
                {2, "", "Error: mtu greater than device maximum.\n"});
  auto status = ApplyChange(runner, plan);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("mtu greater than device maximum"), std::string::npos);
}

TEST(StandChange, RecordChangeWritesTheNewSpec) {
  const std::string dir = ::testing::TempDir() + "/cmp-stand-state-" + std::to_string(getpid());
  StandInfo changed = Current();
  changed.subnet_index = 3;
  changed.spec.mtu = 9000;
  changed.spec.offloads.tso = Toggle::kOff;
  ASSERT_TRUE(RecordChange(changed, dir));
  auto loaded = StateDir(dir).Load("cmp");
  ASSERT_TRUE(loaded && *loaded);
  EXPECT_EQ((*loaded)->spec.mtu, 9000);
  EXPECT_EQ((*loaded)->spec.offloads.tso, Toggle::kOff);
  EXPECT_EQ((*loaded)->subnet_index, 3);
  // A rediscovered stand has no state file to keep.
  changed.spec.name = "cmpx";
  changed.from_state = false;
  ASSERT_TRUE(RecordChange(changed, dir));
  EXPECT_FALSE(*StateDir(dir).Load("cmpx"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nicbench::stand
