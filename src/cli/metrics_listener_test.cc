// --metrics-listen's address: localhost unless told, IPv6 in brackets, port 0 for the kernel's
// pick, and an error naming the option for anything else.
#include "cli/metrics_listener.h"

#include <gtest/gtest.h>

namespace nicbench::cli {
namespace {

TEST(ParseListenAddress, FormsAndErrors) {
  auto a = ParseListenAddress("9478");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9478);
  EXPECT_EQ(ParseListenAddress(":9478").value().host, "127.0.0.1");
  EXPECT_EQ(ParseListenAddress("0.0.0.0:9478").value().host, "0.0.0.0");
  auto v6 = ParseListenAddress("[::1]:0");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  for (const char* bad : {"", "host:", "host:http", "127.0.0.1:65536", "127.0.0.1:-1"}) {
    auto r = ParseListenAddress(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_NE(r.error().message.find("--metrics-listen"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace nicbench::cli
