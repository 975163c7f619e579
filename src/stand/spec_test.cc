#include "stand/spec.h"

#include <gtest/gtest.h>

namespace nicbench::stand {
namespace {

TEST(StandSpecTest, ParsesProfilesCaseInsensitively) {
  EXPECT_EQ(ParseProfile("100baseTX").value(), Profile::k100BaseTx);
  EXPECT_EQ(ParseProfile("100BASETX").value(), Profile::k100BaseTx);
  EXPECT_EQ(ParseProfile("1000baseT").value(), Profile::k1000BaseT);
  EXPECT_EQ(ParseProfile("10gbase-t").value(), Profile::k10GBaseT);
  EXPECT_EQ(ParseProfile("unlimited").value(), Profile::kUnlimited);
  auto bad = ParseProfile("56k");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("100baseTX"), std::string::npos);  // lists the choices
}

TEST(StandSpecTest, ProfileRatesAreLineRatesInBitsPerSecond) {
  EXPECT_EQ(ProfileBitsPerSecond(Profile::k100BaseTx), 100'000'000u);
  EXPECT_EQ(ProfileBitsPerSecond(Profile::k1000BaseT), 1'000'000'000u);
  EXPECT_EQ(ProfileBitsPerSecond(Profile::k10GBaseT), 10'000'000'000u);
  EXPECT_FALSE(ProfileBitsPerSecond(Profile::kUnlimited).has_value());
  EXPECT_EQ(ProfileName(Profile::k10GBaseT), "10GBASE-T");
}

TEST(StandSpecTest, QueueLimitsAndBottlenecks) {
  EXPECT_EQ(ParseQueueLimit("50ms").value().ms, 50u);
  EXPECT_EQ(ParseQueueLimit("1500").value().bytes, 1500u);
  EXPECT_EQ(QueueLimitText(ParseQueueLimit("2M").value()), "2097152");
  for (const char* bad : {"0", "0ms", "fast", "ms", "10001ms", "-5", "5G"}) {
    EXPECT_FALSE(ParseQueueLimit(bad)) << bad;
  }
  StandSpec spec;
  spec.profile = Profile::kUnlimited;
  spec.queue_limit = QueueLimit{0, 50};
  EXPECT_NE(Validate(spec).error().message.find("needs a shaped --profile"), std::string::npos);
  spec = StandSpec{};
  spec.bottleneck = Profile::k100BaseTx;
  EXPECT_NE(Validate(spec).error().message.find("--hosts 3"), std::string::npos);
  spec.hosts = 3;
  spec.bottleneck = Profile::k10GBaseT;  // faster than the 1000baseT links
  EXPECT_NE(Validate(spec).error().message.find("slower than --profile"), std::string::npos);
}

TEST(StandSpecTest, QueueLimitOnOneHostNeedsALimitAndAHost) {
  StandSpec spec;
  spec.profile = Profile::k100BaseTx;
  spec.queue_limit_on = 1;
  auto no_limit = Validate(spec);
  ASSERT_FALSE(no_limit);
  EXPECT_NE(no_limit.error().message.find("needs --queue-limit"), std::string::npos);
  spec.queue_limit = QueueLimit{0, 200};
  EXPECT_TRUE(Validate(spec));
  spec.queue_limit_on = 3;  // a 2-host stand
  auto no_host = Validate(spec);
  ASSERT_FALSE(no_host);
  EXPECT_NE(no_host.error().message.find("h1..h2, got h3"), std::string::npos);
  spec.hosts = 3;
  spec.profile = Profile::k1000BaseT;
  spec.bottleneck = Profile::k100BaseTx;
  auto both = Validate(spec);
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message.find("--bottleneck"), std::string::npos);
}

TEST(StandSpecTest, QueueKindsAndWhatTheyExclude) {
  EXPECT_EQ(ParseQueueKind("fq_codel").value(), QueueKind::kFqCodel);
  EXPECT_EQ(ParseQueueKind("cake").value(), QueueKind::kCake);
  EXPECT_EQ(QueueKindModule(QueueKind::kCake), "sch_cake");
  auto bad = ParseQueueKind("foo");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--queue"), std::string::npos);
  StandSpec spec;
  spec.queue = QueueKind::kFqCodel;
  EXPECT_TRUE(Validate(spec));
  spec.profile = Profile::kUnlimited;
  EXPECT_TRUE(Validate(spec));  // the root then
  spec.delay_ms = 5;
  EXPECT_NE(Validate(spec).error().message.find("--delay"), std::string::npos);
  spec = StandSpec{};
  spec.queue = QueueKind::kCake;
  spec.queue_limit = QueueLimit{0, 50};
  EXPECT_NE(Validate(spec).error().message.find("--queue-limit"), std::string::npos);
}

TEST(StandSpecTest, Toggles) {
  EXPECT_EQ(ParseToggle("on").value(), Toggle::kOn);
  EXPECT_EQ(ParseToggle("OFF").value(), Toggle::kOff);
  EXPECT_FALSE(ParseToggle("yes"));
  EXPECT_FALSE(ParseToggle(""));
}

TEST(StandSpecTest, DefaultSpecIsValid) { EXPECT_TRUE(Validate(StandSpec{})); }

TEST(StandSpecTest, RejectsBadNames) {
  for (const char* name : {"", "NB", "1nb", "nb-2", "averylongname", "n b", "nb_x"}) {
    EXPECT_FALSE(ValidateName(name)) << name;
  }
  for (const char* name : {"nb", "a", "stand123", "t1"}) EXPECT_TRUE(ValidateName(name)) << name;
}

TEST(StandSpecTest, RejectsOutOfRangeNumbers) {
  StandSpec spec;
  spec.hosts = 1;
  EXPECT_FALSE(Validate(spec));
  spec.hosts = kMaxHosts + 1;
  EXPECT_FALSE(Validate(spec));
  spec.hosts = kMaxHosts;
  EXPECT_TRUE(Validate(spec));
  spec.mtu = 67;
  auto bad = Validate(spec);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--mtu"), std::string::npos);
  spec.mtu = 9000;
  EXPECT_TRUE(Validate(spec));
  spec.delay_ms = -1;
  EXPECT_FALSE(Validate(spec));
}

TEST(StandSpecTest, RejectsTsoWithoutChecksumming) {
  StandSpec spec;
  spec.offloads.checksum = Toggle::kOff;
  EXPECT_TRUE(Validate(spec));  // TSO left to the kernel: it goes off by itself
  spec.offloads.tso = Toggle::kOn;
  auto bad = Validate(spec);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--tso on needs --checksum on"), std::string::npos);
}

TEST(StandSpecTest, NamesSayWhatTheyAre) {
  EXPECT_EQ(HostNamespace("nb", 1), "nb-h1");
  EXPECT_EQ(SwitchNamespace("nb"), "nb-sw");
  EXPECT_EQ(HostDevice("nb", 2), "nb-h2-e0");
  EXPECT_EQ(SwitchPort("nb", 3), "nb-sw-p3");
  EXPECT_EQ(BridgeDevice("nb"), "nb-br");
  // The longest names still fit IFNAMSIZ - 1.
  EXPECT_LE(HostDevice("abcdefgh", kMaxHosts).size(), 15u);
  EXPECT_LE(SwitchPort("abcdefgh", kMaxHosts).size(), 15u);
}

TEST(StandSpecTest, FindsTheStandOfANamespace) {
  EXPECT_EQ(StandOfNamespace("nb-h1"), "nb");
  EXPECT_EQ(StandOfNamespace("nb-h12"), "nb");
  EXPECT_EQ(StandOfNamespace("lab2-sw"), "lab2");
  EXPECT_FALSE(StandOfNamespace("nb"));
  EXPECT_FALSE(StandOfNamespace("nb-h"));
  EXPECT_FALSE(StandOfNamespace("nb-h0"));
  EXPECT_FALSE(StandOfNamespace("nb-x1"));
  EXPECT_FALSE(StandOfNamespace("my-netns"));
  EXPECT_FALSE(StandOfNamespace("Foo-h1"));
}

TEST(StandSpecTest, PrefixOfOneStandDoesNotMatchAnother) {
  EXPECT_TRUE(CarriesStandPrefix("nb", "nb-h1-e0"));
  EXPECT_FALSE(CarriesStandPrefix("nb", "nb2-h1-e0"));
  EXPECT_FALSE(CarriesStandPrefix("nb", "nb"));
  EXPECT_FALSE(CarriesStandPrefix("nb", "nb-"));
}

TEST(StandSpecTest, AcceptsShortAndFullHostNames) {
  EXPECT_EQ(ParseHostName("nb", "h1").value(), 1);
  EXPECT_EQ(ParseHostName("nb", "nb-h2").value(), 2);
  EXPECT_EQ(ParseHostName("lab", "h12").value(), 12);
  EXPECT_FALSE(ParseHostName("nb", "h0"));
  EXPECT_FALSE(ParseHostName("nb", "other-h1"));
  EXPECT_FALSE(ParseHostName("nb", "sw"));
  EXPECT_FALSE(ParseHostName("nb", "h1x"));
}

TEST(StandSpecTest, AddressesStayInsideTheBenchmarkingRange) {
  EXPECT_EQ(HostAddress(0, 1), "198.18.0.1");
  EXPECT_EQ(HostAddress(5, 2), "198.18.5.2");
  EXPECT_EQ(HostAddress(256, 3), "198.19.0.3");
  EXPECT_EQ(HostAddress(511, 254), "198.19.255.254");
  EXPECT_EQ(SubnetText(257), "198.19.1.0/24");
  EXPECT_EQ(SubnetIndexOf("198.18.7.1"), 7);
  EXPECT_EQ(SubnetIndexOf("198.19.1.9"), 257);
  EXPECT_FALSE(SubnetIndexOf("198.20.0.1"));
  EXPECT_FALSE(SubnetIndexOf("10.0.0.1"));
  EXPECT_FALSE(SubnetIndexOf("198.18.0"));
  EXPECT_FALSE(SubnetIndexOf("198.18.0.1x"));
}

}  // namespace
}  // namespace nicbench::stand
