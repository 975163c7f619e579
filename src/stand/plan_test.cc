#include "stand/plan.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace nicbench::stand {
namespace {

bool Contains(const std::vector<Argv>& plan, const Argv& argv) {
  return std::find(plan.begin(), plan.end(), argv) != plan.end();
}

size_t IndexOf(const std::vector<Argv>& plan, const Argv& argv) {
  return static_cast<size_t>(std::find(plan.begin(), plan.end(), argv) - plan.begin());
}

TEST(StandPlanTest, TwoHostsAreOneVethPairWithoutSwitch) {
  StandSpec spec;
  spec.name = "t";
  std::vector<Argv> plan = BuildTopologyPlan(spec, 3);
  EXPECT_TRUE(Contains(plan, {"ip", "netns", "add", "t-h1"}));
  EXPECT_TRUE(Contains(plan, {"ip", "netns", "add", "t-h2"}));
  EXPECT_TRUE(Contains(plan, {"ip", "-n", "t-h1", "link", "set", "dev", "lo", "up"}));
  EXPECT_TRUE(Contains(plan, {"ip", "link", "add", "t-h1-e0", "netns", "t-h1", "type", "veth",
                              "peer", "name", "t-h2-e0", "netns", "t-h2"}));
  EXPECT_TRUE(
      Contains(plan, {"ip", "-n", "t-h1", "addr", "add", "198.18.3.1/24", "dev", "t-h1-e0"}));
  EXPECT_TRUE(
      Contains(plan, {"ip", "-n", "t-h2", "addr", "add", "198.18.3.2/24", "dev", "t-h2-e0"}));
  EXPECT_TRUE(Contains(plan, {"ip", "-n", "t-h2", "link", "set", "dev", "t-h2-e0", "mtu", "1500"}));
  for (const auto& argv : plan) {
    for (const auto& word : argv) EXPECT_EQ(word.find("-sw"), std::string::npos) << word;
  }
  // Namespaces exist before the pair is created into them; addresses before links go up.
  EXPECT_LT(IndexOf(plan, {"ip", "netns", "add", "t-h2"}),
            IndexOf(plan, {"ip", "link", "add", "t-h1-e0", "netns", "t-h1", "type", "veth", "peer",
                           "name", "t-h2-e0", "netns", "t-h2"}));
  EXPECT_LT(IndexOf(plan, {"ip", "-n", "t-h1", "addr", "add", "198.18.3.1/24", "dev", "t-h1-e0"}),
            IndexOf(plan, {"ip", "-n", "t-h1", "link", "set", "dev", "t-h1-e0", "up"}));
}

TEST(StandPlanTest, MoreHostsMeetOnABridgeInTheSwitchNamespace) {
  StandSpec spec;
  spec.name = "big";
  spec.hosts = 3;
  spec.mtu = 9000;
  std::vector<Argv> plan = BuildTopologyPlan(spec, 0);
  EXPECT_TRUE(Contains(plan, {"ip", "netns", "add", "big-sw"}));
  EXPECT_TRUE(
      Contains(plan, {"ip", "-n", "big-sw", "link", "add", "name", "big-br", "type", "bridge"}));
  for (int host = 1; host <= 3; ++host) {
    std::string h = std::to_string(host);
    EXPECT_TRUE(
        Contains(plan, {"ip", "link", "add", "big-h" + h + "-e0", "netns", "big-h" + h, "type",
                        "veth", "peer", "name", "big-sw-p" + h, "netns", "big-sw"}));
    EXPECT_TRUE(Contains(
        plan, {"ip", "-n", "big-sw", "link", "set", "dev", "big-sw-p" + h, "master", "big-br"}));
    EXPECT_TRUE(Contains(
        plan, {"ip", "-n", "big-h" + h, "link", "set", "dev", "big-h" + h + "-e0", "mtu", "9000"}));
  }
  EXPECT_TRUE(
      Contains(plan, {"ip", "-n", "big-h3", "addr", "add", "198.18.0.3/24", "dev", "big-h3-e0"}));
  EXPECT_EQ(VethEnds(spec).size(), 6u);
}

TEST(StandPlanTest, OffloadsOnlyForTogglesThatWereAskedFor) {
  StandSpec spec;
  EXPECT_TRUE(BuildOffloadPlan(spec).empty());
  spec.offloads.tso = Toggle::kOff;
  spec.offloads.gro = Toggle::kOn;
  std::vector<Argv> plan = BuildOffloadPlan(spec);
  ASSERT_EQ(plan.size(), 2u);  // both veth ends
  EXPECT_EQ(plan[0], (Argv{"ip", "netns", "exec", "nb-h1", "ethtool", "-K", "nb-h1-e0", "tso",
                           "off", "gro", "on"}));
  spec.offloads = {};
  spec.offloads.checksum = Toggle::kOff;
  plan = BuildOffloadPlan(spec);
  EXPECT_EQ(plan[1], (Argv{"ip", "netns", "exec", "nb-h2", "ethtool", "-K", "nb-h2-e0", "tx", "off",
                           "rx", "off"}));
}

TEST(StandPlanTest, ShapingFollowsTheLineRate) {
  Shaping fast_ethernet = ComputeShaping(100'000'000, 1500);
  EXPECT_EQ(fast_ethernet.rate_bits_per_second, 100'000'000u);
  EXPECT_EQ(fast_ethernet.burst_bytes, 12'500u);   // 1 ms
  EXPECT_EQ(fast_ethernet.limit_bytes, 625'000u);  // 50 ms
  Shaping gigabit = ComputeShaping(1'000'000'000, 1500);
  EXPECT_EQ(gigabit.burst_bytes, 125'000u);
  EXPECT_EQ(gigabit.limit_bytes, 6'250'000u);
  // A slow link with jumbo frames: the bucket still holds two whole frames.
  Shaping slow_jumbo = ComputeShaping(10'000'000, 9000);
  EXPECT_EQ(slow_jumbo.burst_bytes, 2u * (9000 + 14 + kEthernetOverheadBytes));
  EXPECT_GE(slow_jumbo.limit_bytes, 2 * slow_jumbo.burst_bytes);
}

TEST(StandPlanTest, TbfOnEveryVethEgress) {
  StandSpec spec;
  spec.profile = Profile::k100BaseTx;
  std::vector<Argv> plan = BuildShapingPlan(spec, Shaper::kTbf);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0], (Argv{"tc", "-n", "nb-h1", "qdisc", "add", "dev", "nb-h1-e0", "root", "handle",
                           "1:", "tbf", "rate", "100000000bit", "burst", "12500", "limit", "625000",
                           "overhead", "24"}));
  EXPECT_EQ(plan[1][2], "nb-h2");
  spec.hosts = 4;
  EXPECT_EQ(BuildShapingPlan(spec, Shaper::kTbf).size(), 8u);  // host ends and switch ports
}

TEST(StandPlanTest, QueueLimitAsBytesOrTimeAtTheRate) {
  StandSpec spec;
  spec.profile = Profile::k100BaseTx;
  spec.queue_limit = ParseQueueLimit("200ms").value();
  std::vector<Argv> plan = BuildShapingPlan(spec, Shaper::kTbf);
  EXPECT_EQ(plan[0][16], "2500000");  // 200 ms at 12,500 bytes a millisecond
  spec.queue_limit = ParseQueueLimit("64K").value();
  EXPECT_EQ(BuildShapingPlan(spec, Shaper::kTbf)[0][16], "65536");
  spec.queue_limit = ParseQueueLimit("100").value();  // at least two whole frames
  EXPECT_EQ(BuildShapingPlan(spec, Shaper::kTbf)[0][16], std::to_string(2 * (1500 + 14 + 24)));
}

TEST(StandPlanTest, BottleneckShapesTheSwitchPortsOnly) {
  StandSpec spec;
  spec.hosts = 3;
  spec.profile = Profile::k1000BaseT;
  spec.bottleneck = Profile::k100BaseTx;
  spec.queue_limit = ParseQueueLimit("100ms").value();
  ASSERT_TRUE(Validate(spec));
  std::vector<Argv> plan = BuildShapingPlan(spec, Shaper::kTbf);
  ASSERT_EQ(plan.size(), 6u);
  for (const Argv& tc : plan) {
    const bool port = tc[2] == "nb-sw";
    EXPECT_EQ(tc[12], port ? "100000000bit" : "1000000000bit") << tc[2];
    // The queue asked for is the bottleneck's; the hosts keep the default 50 ms.
    EXPECT_EQ(tc[16], port ? "1250000" : "6250000") << tc[2];
  }
}

TEST(StandPlanTest, QueueLimitOnOneHostsEgressOnly) {
  StandSpec spec;
  spec.profile = Profile::k100BaseTx;
  spec.queue_limit = ParseQueueLimit("200ms").value();
  spec.queue_limit_on = 1;
  ASSERT_TRUE(Validate(spec));
  std::vector<Argv> plan = BuildShapingPlan(spec, Shaper::kTbf);
  ASSERT_EQ(plan.size(), 2u);
  // h1 -> h2 holds 200 ms; h2 -> h1 keeps the profile's 50 ms.
  EXPECT_EQ(plan[0][2], "nb-h1");
  EXPECT_EQ(plan[0][16], "2500000");
  EXPECT_EQ(plan[1][2], "nb-h2");
  EXPECT_EQ(plan[1][16], "625000");
  // With a switch, the other hosts' ends and every port keep the default as well.
  spec.hosts = 3;
  spec.queue_limit_on = 2;
  plan = BuildShapingPlan(spec, Shaper::kTbf);
  int deep = 0;
  for (const Argv& tc : plan) {
    const bool h2 = tc[2] == "nb-h2" && tc[6] == "nb-h2-e0";
    EXPECT_EQ(tc[16], h2 ? "2500000" : "625000") << tc[2] << " " << tc[6];
    deep += h2;
  }
  EXPECT_EQ(deep, 1);
}

TEST(StandPlanTest, HtbFallbackHasClassAndQueue) {
  StandSpec spec;
  spec.profile = Profile::k1000BaseT;
  std::vector<Argv> one = ShapeOneEnd({"nb-h1", "nb-h1-e0"}, spec, Shaper::kHtb);
  ASSERT_EQ(one.size(), 3u);
  EXPECT_EQ(one[0], (Argv{"tc", "-n", "nb-h1", "qdisc", "add", "dev", "nb-h1-e0", "root", "handle",
                          "1:", "htb", "default", "1"}));
  EXPECT_EQ(one[1][11], "htb");
  EXPECT_EQ(one[1][13], "1000000000bit");
  EXPECT_EQ(one[2], (Argv{"tc", "-n", "nb-h1", "qdisc", "add", "dev", "nb-h1-e0", "parent", "1:1",
                          "handle", "10:", "bfifo", "limit", "6250000"}));
}

TEST(StandPlanTest, UnlimitedAddsNoQdiscUnlessDelayed) {
  StandSpec spec;
  spec.profile = Profile::kUnlimited;
  EXPECT_TRUE(BuildShapingPlan(spec, Shaper::kNone).empty());
  spec.delay_ms = 5;
  std::vector<Argv> plan = BuildShapingPlan(spec, Shaper::kNone);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0], (Argv{"tc", "-n", "nb-h1", "qdisc", "add", "dev", "nb-h1-e0", "root", "handle",
                           "1:", "netem", "delay", "5ms"}));
}

TEST(StandPlanTest, DelayHangsNetemUnderTheShaper) {
  StandSpec spec;
  spec.profile = Profile::k100BaseTx;
  spec.delay_ms = 20;
  std::vector<Argv> one = ShapeOneEnd({"nb-h1", "nb-h1-e0"}, spec, Shaper::kTbf);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[1][7], "parent");
  EXPECT_EQ(one[1][8], "1:1");
  EXPECT_EQ(one[1][11], "netem");
  EXPECT_EQ(one[1][13], "20ms");
  EXPECT_EQ(one[1][15], "1000");  // netem's default is already enough at 100 Mbit/s
  // 20 ms at 1 Gbit/s in flight plus the 6.25 MB queue, in 1514-byte frames.
  spec.profile = Profile::k1000BaseT;
  one = ShapeOneEnd({"nb-h1", "nb-h1-e0"}, spec, Shaper::kTbf);
  EXPECT_EQ(one[1][15], std::to_string((2'500'000 + 6'250'000) / 1514 + 1));
}

TEST(StandPlanTest, QueueKindIsTheShapersChildOrTheRoot) {
  StandSpec spec;
  spec.profile = Profile::k100BaseTx;
  spec.queue = QueueKind::kFqCodel;
  const VethEnd end{"nb-h1", "nb-h1-e0"};
  const Argv child = {"tc",       "-n",     "nb-h1", "qdisc",  "add", "dev",
                      "nb-h1-e0", "parent", "1:1",   "handle", "10:", "fq_codel"};
  std::vector<Argv> tbf = ShapeOneEnd(end, spec, Shaper::kTbf);
  ASSERT_EQ(tbf.size(), 2u);
  EXPECT_EQ(tbf[0][10], "tbf");
  EXPECT_EQ(tbf[1], child);
  // Under htb it takes the bfifo's place.
  std::vector<Argv> htb = ShapeOneEnd(end, spec, Shaper::kHtb);
  ASSERT_EQ(htb.size(), 3u);
  EXPECT_EQ(htb[2], child);
  spec.profile = Profile::kUnlimited;
  spec.queue = QueueKind::kCake;
  std::vector<Argv> plan = BuildShapingPlan(spec, Shaper::kNone);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[1], (Argv{"tc", "-n", "nb-h2", "qdisc", "add", "dev", "nb-h2-e0", "root", "handle",
                           "1:", "cake"}));
}

TEST(StandPlanTest, DownRemovesNamespacesBeforeStrayDevices) {
  std::vector<Argv> plan = BuildDownPlan({"nb-h1", "nb-sw"}, {"nb-h1-e0"});
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0], (Argv{"ip", "netns", "del", "nb-h1"}));
  EXPECT_EQ(plan[1], (Argv{"ip", "netns", "del", "nb-sw"}));
  EXPECT_EQ(plan[2], (Argv{"ip", "link", "del", "dev", "nb-h1-e0"}));
  EXPECT_TRUE(BuildDownPlan({}, {}).empty());
}

TEST(StandPlanTest, QdiscProbesUseLoOfTheNamespace) {
  EXPECT_EQ(QdiscProbeCommand("nb-h1", "netem"),
            (Argv{"tc", "-n", "nb-h1", "qdisc", "add", "dev", "lo", "root", "handle", "1:", "netem",
                  "delay", "1ms"}));
  EXPECT_EQ(QdiscProbeCleanupCommand("nb-h1"),
            (Argv{"tc", "-n", "nb-h1", "qdisc", "del", "dev", "lo", "root"}));
}

TEST(StandPlanTest, ScratchProbeNeedsNoNamespaceOfOurs) {
  EXPECT_EQ(ScratchQdiscProbeCommand("fq_codel"),
            (Argv{"unshare", "--net", "tc", "qdisc", "add", "dev", "lo", "root", "handle",
                  "1:", "fq_codel"}));
  EXPECT_EQ(ScratchQdiscProbeCommand("tbf").back(), "10000");
}

}  // namespace
}  // namespace nicbench::stand
