#include "net/access_list.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <gtest/gtest.h>

namespace nicbench::net {
namespace {

sockaddr_storage V4(const char* text) {
  sockaddr_storage ss{};
  auto* sin = reinterpret_cast<sockaddr_in*>(&ss);
  sin->sin_family = AF_INET;
  inet_pton(AF_INET, text, &sin->sin_addr);
  return ss;
}

sockaddr_storage V6(const char* text) {
  sockaddr_storage ss{};
  auto* sin6 = reinterpret_cast<sockaddr_in6*>(&ss);
  sin6->sin6_family = AF_INET6;
  inet_pton(AF_INET6, text, &sin6->sin6_addr);
  return ss;
}

bool Permits(const AccessList& list, const sockaddr_storage& ss) {
  return list.Permits(reinterpret_cast<const sockaddr*>(&ss));
}

TEST(AddressPrefix, ParsesIpv4AndIpv6) {
  auto a = AddressPrefix::Parse("10.0.0.0/8");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bits, 104);
  EXPECT_EQ(a->ToString(), "10.0.0.0/8");
  EXPECT_EQ(AddressPrefix::Parse("127.0.0.2")->ToString(), "127.0.0.2/32");
  EXPECT_EQ(AddressPrefix::Parse("2001:db8::/32")->ToString(), "2001:db8::/32");
  EXPECT_EQ(AddressPrefix::Parse("::1")->ToString(), "::1/128");
  // An IPv4-mapped rule is the IPv4 rule.
  EXPECT_EQ(AddressPrefix::Parse("::ffff:10.0.0.0/104")->ToString(), "10.0.0.0/8");
  EXPECT_EQ(AddressPrefix::Parse("0.0.0.0/0")->bits, 96);
}

TEST(AddressPrefix, RefusesMalformedRules) {
  for (const char* bad :
       {"", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/8x", "10.1.2.3/8", "::1/129",
        "host.example", "10.0.0/8", "1.2.3.4/ 8", "2001:db8::1/32"}) {
    auto p = AddressPrefix::Parse(bad);
    ASSERT_FALSE(p) << bad;
    EXPECT_NE(p.error().message.find(std::string("'") + bad + "'"), std::string::npos)
        << p.error().message;
  }
}

TEST(AddressPrefix, MatchesOnTheBitsOfThePrefix) {
  std::array<uint8_t, 16> addr{};
  auto p = *AddressPrefix::Parse("192.168.4.0/22");
  auto check = [&](const char* text) {
    auto ss = V4(text);
    ToV6Bytes(reinterpret_cast<const sockaddr*>(&ss), &addr);
    return p.Contains(addr);
  };
  EXPECT_TRUE(check("192.168.4.1"));
  EXPECT_TRUE(check("192.168.7.255"));
  EXPECT_FALSE(check("192.168.8.0"));
  EXPECT_FALSE(check("192.168.3.255"));
}

TEST(AccessList, EmptyPermitsEveryone) {
  AccessList list;
  EXPECT_TRUE(list.empty());
  EXPECT_TRUE(Permits(list, V4("203.0.113.9")));
  EXPECT_TRUE(Permits(list, V6("2001:db8::1")));
}

TEST(AccessList, AllowListsAndDenyWins) {
  AccessList list;
  ASSERT_TRUE(list.Allow("127.0.0.0/8"));
  ASSERT_TRUE(list.Allow("2001:db8::/32"));
  ASSERT_TRUE(list.Deny("127.0.0.2"));
  EXPECT_TRUE(Permits(list, V4("127.0.0.1")));
  EXPECT_FALSE(Permits(list, V4("127.0.0.2")));
  EXPECT_FALSE(Permits(list, V4("10.0.0.1")));
  EXPECT_TRUE(Permits(list, V6("2001:db8:1::5")));
  EXPECT_FALSE(Permits(list, V6("2001:db9::5")));
  // The dual-stack listener sees IPv4 clients as IPv4-mapped IPv6 addresses.
  EXPECT_TRUE(Permits(list, V6("::ffff:127.0.0.1")));
  EXPECT_FALSE(Permits(list, V6("::ffff:127.0.0.2")));
  sockaddr_storage unix_family{};
  unix_family.ss_family = AF_UNIX;
  EXPECT_FALSE(Permits(list, unix_family));
}

TEST(AccessList, DenyAloneRefusesOnlyItsPrefix) {
  AccessList list;
  ASSERT_TRUE(list.Deny("::1"));
  EXPECT_FALSE(Permits(list, V6("::1")));
  EXPECT_TRUE(Permits(list, V4("127.0.0.1")));
  EXPECT_FALSE(list.Deny("300.1.1.1"));
}

}  // namespace
}  // namespace nicbench::net
