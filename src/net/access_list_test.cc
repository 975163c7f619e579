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

std::string SubnetText(const sockaddr_storage& ss, int v4_bits, int v6_bits) {
  std::array<uint8_t, 16> addr{};
  EXPECT_TRUE(ToV6Bytes(reinterpret_cast<const sockaddr*>(&ss), &addr));
  return SubnetOf(addr, v4_bits, v6_bits).ToString();
}

TEST(SubnetOf, ClearsTheBitsPastEachFamilysPrefix) {
  EXPECT_EQ(SubnetText(V4("192.0.2.77"), 24, 64), "192.0.2.0/24");
  EXPECT_EQ(SubnetText(V4("127.0.1.1"), 24, 64), "127.0.1.0/24");
  EXPECT_EQ(SubnetText(V4("127.0.2.1"), 24, 64), "127.0.2.0/24");
  EXPECT_EQ(SubnetText(V4("10.1.2.3"), 20, 64), "10.1.0.0/20");
  EXPECT_EQ(SubnetText(V4("10.1.2.3"), 32, 64), "10.1.2.3/32");
  EXPECT_EQ(SubnetText(V4("10.1.2.3"), 0, 64), "0.0.0.0/0");
  // The dual-stack listener's IPv4-mapped form is the same IPv4 subnet.
  EXPECT_EQ(SubnetText(V6("::ffff:127.0.1.9"), 24, 64), "127.0.1.0/24");
  EXPECT_EQ(SubnetText(V6("2001:db8:1:2:3:4:5:6"), 24, 64), "2001:db8:1:2::/64");
  EXPECT_EQ(SubnetText(V6("2001:db8:1:2:3:4:5:6"), 24, 48), "2001:db8:1::/48");
  EXPECT_EQ(SubnetText(V6("::1"), 24, 128), "::1/128");
  // The subnet contains the address it came from, and not its neighbour's.
  std::array<uint8_t, 16> addr{};
  auto a = V4("198.18.5.6");
  ToV6Bytes(reinterpret_cast<const sockaddr*>(&a), &addr);
  const AddressPrefix subnet = SubnetOf(addr, 24, 64);
  EXPECT_TRUE(subnet.Contains(addr));
  auto b = V4("198.18.6.6");
  ToV6Bytes(reinterpret_cast<const sockaddr*>(&b), &addr);
  EXPECT_FALSE(subnet.Contains(addr));
}

}  // namespace
}  // namespace nicbench::net
