#include "stand/readback.h"

#include <gtest/gtest.h>

#include "stand/fake_command_runner.h"

namespace nicbench::stand {
namespace {

// Captured on kernel 6.18, iproute2 6.1: `tc -j qdisc show dev nb-h1-e0` after
// `tc qdisc add ... tbf rate 100mbit burst 12500 limit 125000 overhead 24`.
constexpr const char kTbfJson[] =
    R"([{"kind":"tbf","handle":"8002:","root":true,"refcnt":3,)"
    R"("options":{"rate":12500000,"burst":12512,"lat":8999,"overhead":24}}])";
// The same tc on a veth with no qdisc configured.
constexpr const char kNoqueueJson[] =
    R"([{"kind":"noqueue","handle":"0:","root":true,"refcnt":2,"options":{}}])";
// `tc class show dev d0` for an htb class; tc 6.1 prints text even with -j.
constexpr const char kHtbClass[] =
    "class htb 1:1 root prio 0 rate 100Mbit overhead 24 ceil 100Mbit burst 12500b cburst "
    "12500b \n";
// `ethtool -k nb-h1-e0` (ethtool 6.1, veth, kernel 6.18) after `ethtool -K nb-h1-e0 tso off`,
// first lines.
constexpr const char kReadbackFeatures[] =
    "Features for nb-h1-e0:\n"
    "rx-checksumming: on\n"
    "tx-checksumming: on\n"
    "\ttx-checksum-ipv4: off [fixed]\n"
    "\ttx-checksum-ip-generic: on\n"
    "scatter-gather: on\n"
    "\ttx-scatter-gather: on\n"
    "tcp-segmentation-offload: off\n"
    "\ttx-tcp-segmentation: off\n"
    "generic-segmentation-offload: on\n"
    "generic-receive-offload: off\n"
    "large-receive-offload: off [fixed]\n";

TEST(StandReadbackTest, TbfRateIsReportedInBitsPerSecond) {
  auto info = ParseQdiscJson(kTbfJson);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->kind, "tbf");
  EXPECT_EQ(info->rate_bits_per_second, 100'000'000u);
  EXPECT_EQ(info->burst_bytes, 12512u);
  EXPECT_EQ(info->overhead_bytes, 24);
}

TEST(StandReadbackTest, NoqueueHasNoRate) {
  auto info = ParseQdiscJson(kNoqueueJson);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->kind, "noqueue");
  EXPECT_FALSE(info->rate_bits_per_second);
  EXPECT_EQ(ParseQdiscJson("[]").value().kind, "noqueue");
}

TEST(StandReadbackTest, RejectsBrokenQdiscJson) {
  EXPECT_FALSE(ParseQdiscJson(""));
  EXPECT_FALSE(ParseQdiscJson("{}"));
  EXPECT_FALSE(ParseQdiscJson(R"([{"root":true,"kind":5}])"));
}

TEST(StandReadbackTest, TcRates) {
  EXPECT_EQ(ParseTcRate("100Mbit").value(), 100'000'000u);
  EXPECT_EQ(ParseTcRate("1Gbit").value(), 1'000'000'000u);
  EXPECT_EQ(ParseTcRate("1.5Gbit").value(), 1'500'000'000u);
  EXPECT_EQ(ParseTcRate("800Kbit").value(), 800'000u);
  EXPECT_EQ(ParseTcRate("64bit").value(), 64u);
  EXPECT_FALSE(ParseTcRate("Mbit"));
  EXPECT_FALSE(ParseTcRate("100Mbps"));
  EXPECT_FALSE(ParseTcRate("-1Mbit"));
}

TEST(StandReadbackTest, HtbClassRate) {
  EXPECT_EQ(ParseHtbClassRate(kHtbClass).value(), 100'000'000u);
  EXPECT_FALSE(ParseHtbClassRate("class htb 1:2 root rate 1Mbit\n"));
  EXPECT_FALSE(ParseHtbClassRate(""));
}

TEST(StandReadbackTest, EthtoolTopLevelFeaturesOnly) {
  OffloadFlags flags = ParseEthtoolFeatures(kReadbackFeatures);
  EXPECT_EQ(flags.tso, false);
  EXPECT_EQ(flags.gso, true);
  EXPECT_EQ(flags.gro, false);
  EXPECT_EQ(flags.tx_checksum, true);
  EXPECT_EQ(flags.rx_checksum, true);
  EXPECT_FALSE(ParseEthtoolFeatures("Features for x:\n").tso.has_value());  // unknown, not off
}

TEST(StandReadbackTest, ReadQdiscFillsHtbRateFromItsClass) {
  FakeCommandRunner runner;
  runner.Answer({"tc", "-n", "ns", "-j", "qdisc"},
                {0, R"([{"kind":"htb","handle":"1:","root":true,"options":{"r2q":10}}])", ""});
  runner.Answer({"tc", "-n", "ns", "class"}, {0, kHtbClass, ""});
  auto info = ReadQdisc(runner, "ns", "d0");
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->kind, "htb");
  EXPECT_EQ(info->rate_bits_per_second, 100'000'000u);
  EXPECT_TRUE(runner.Ran({"tc", "-n", "ns", "class", "show", "dev", "d0"}));
}

TEST(StandReadbackTest, ReadQdiscInOwnNamespaceAndItsErrors) {
  FakeCommandRunner runner;
  runner.Answer({"tc"}, {1, "", "Cannot find device \"eth9\"\n"});
  auto info = ReadQdisc(runner, "", "eth9");
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().message.find("Cannot find device"), std::string::npos);
  EXPECT_TRUE(runner.Ran({"tc", "-j", "qdisc", "show", "dev", "eth9"}));
}

TEST(StandReadbackTest, ReadOffloadsRunsEthtoolInTheNamespace) {
  FakeCommandRunner runner;
  runner.Answer({"ip", "netns", "exec"}, {0, kReadbackFeatures, ""});
  auto flags = ReadOffloads(runner, "nb-h1", "nb-h1-e0");
  ASSERT_TRUE(flags);
  EXPECT_EQ(flags->tso, false);
  EXPECT_TRUE(runner.Ran({"ip", "netns", "exec", "nb-h1", "ethtool", "-k", "nb-h1-e0"}));
}

}  // namespace
}  // namespace nicbench::stand
