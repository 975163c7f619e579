#include "base/units.h"

#include <gtest/gtest.h>

namespace nicbench {
namespace {

TEST(ParseByteSize, SuffixesArePowersOf1024) {
  EXPECT_EQ(ParseByteSize("128K").value(), 131072u);
  EXPECT_EQ(ParseByteSize("10M").value(), 10485760u);
  EXPECT_EQ(ParseByteSize("1g").value(), 1073741824u);
  EXPECT_EQ(ParseByteSize("8192").value(), 8192u);
}

TEST(ParseByteSize, RejectsJunk) {
  EXPECT_FALSE(ParseByteSize("").has_value());
  EXPECT_FALSE(ParseByteSize("-5").has_value());
  EXPECT_FALSE(ParseByteSize("12x").has_value());
  EXPECT_FALSE(ParseByteSize("K").has_value());
  EXPECT_FALSE(ParseByteSize("99999999999T").has_value());
}

TEST(ParseBitRate, SuffixesArePowersOf1000) {
  EXPECT_EQ(ParseBitRate("100M").value(), 100000000u);
  EXPECT_EQ(ParseBitRate("1.5k").value(), 1500u);
}

TEST(ParseUnsigned, DigitsOnly) {
  EXPECT_EQ(ParseUnsigned("5001").value(), 5001u);
  EXPECT_FALSE(ParseUnsigned("50a").has_value());
  EXPECT_FALSE(ParseUnsigned("-1").has_value());
  EXPECT_FALSE(ParseUnsigned("99999999999999999999999").has_value());
}

TEST(FormatBitRate, ScalesBy1000) {
  EXPECT_EQ(FormatBitRate(0), "0.00 bits/sec");
  EXPECT_EQ(FormatBitRate(1.5e9), "1.50 Gbits/sec");
}

TEST(FormatBytes, ScalesBy1024) { EXPECT_EQ(FormatBytes(1536 * 1024.0), "1.50 MBytes"); }

}  // namespace
}  // namespace nicbench

namespace nicbench {
namespace {

TEST(ParseDuration, UnitsAndBareSeconds) {
  EXPECT_EQ(ParseDuration("500ms").value(), std::chrono::milliseconds(500));
  EXPECT_EQ(ParseDuration("0.2s").value(), std::chrono::milliseconds(200));
  EXPECT_EQ(ParseDuration("30s").value(), std::chrono::milliseconds(30000));
  EXPECT_EQ(ParseDuration("10m").value(), std::chrono::minutes(10));
  EXPECT_EQ(ParseDuration("1h").value(), std::chrono::hours(1));
  EXPECT_EQ(ParseDuration("2d").value(), std::chrono::hours(48));
  EXPECT_EQ(ParseDuration("45").value(), std::chrono::seconds(45));
  for (const char* bad : {"", "s", "-5s", "10x", "ten minutes", "5 m", "400d"}) {
    auto d = ParseDuration(bad);
    ASSERT_FALSE(d.has_value()) << bad;
    EXPECT_NE(d.error().message.find("is not a duration"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace nicbench
