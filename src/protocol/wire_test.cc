#include "protocol/wire.h"

#include <cstring>
#include <set>

#include <gtest/gtest.h>

namespace nicbench::protocol {
namespace {

TEST(WireTest, StateBytesMatchIperf3) {
  EXPECT_EQ(static_cast<int8_t>(State::kTestStart), 1);
  EXPECT_EQ(static_cast<int8_t>(State::kParamExchange), 9);
  EXPECT_EQ(static_cast<int8_t>(State::kCreateStreams), 10);
  EXPECT_EQ(static_cast<int8_t>(State::kExchangeResults), 13);
  EXPECT_EQ(static_cast<int8_t>(State::kIperfDone), 16);
  EXPECT_EQ(static_cast<uint8_t>(State::kAccessDenied), 0xFF);
  EXPECT_EQ(static_cast<uint8_t>(State::kServerError), 0xFE);
}

TEST(WireTest, StateNames) {
  EXPECT_EQ(StateName(State::kTestEnd), "TEST_END");
  EXPECT_EQ(StateName(State::kServerError), "SERVER_ERROR");
  EXPECT_EQ(StateName(static_cast<State>(42)), "UNKNOWN(42)");
  EXPECT_TRUE(IsKnownState(16));
  EXPECT_TRUE(IsKnownState(-2));
  EXPECT_FALSE(IsKnownState(0));
  EXPECT_FALSE(IsKnownState(17));
  EXPECT_TRUE(IsKnownState(100));  // kNicbenchSample
  EXPECT_TRUE(IsKnownState(102));  // kNicbenchReady
  EXPECT_EQ(StateName(State::kNicbenchReady), "NICBENCH_READY");
  EXPECT_TRUE(IsKnownState(103));  // kNicbenchServerProof
  EXPECT_TRUE(IsKnownState(104));  // kNicbenchCrrTokenReady
  EXPECT_TRUE(IsKnownState(105));  // kNicbenchClock
  EXPECT_FALSE(IsKnownState(106));
  EXPECT_FALSE(IsKnownState(-3));
}

TEST(WireTest, CookieHasIperfShapeAndDiffers) {
  const std::string a = MakeCookie();
  const std::string b = MakeCookie();
  EXPECT_EQ(a.size(), 36u);
  EXPECT_TRUE(IsValidCookie(a));
  EXPECT_NE(a, b);
  EXPECT_TRUE(IsValidCookie("b55ml6iwewcsde4xpgpyfratczzmvfhkmzt2"));  // seen on the wire
}

TEST(WireTest, CookieUsesTheWholeAlphabet) {
  std::set<char> seen;
  for (int i = 0; i < 200; ++i) {
    for (char c : MakeCookie()) seen.insert(c);
  }
  // 7200 draws from 32 symbols: every symbol appears unless the generator is broken.
  EXPECT_EQ(seen.size(), 32u);
}

TEST(WireTest, InvalidCookiesRefused) {
  EXPECT_FALSE(IsValidCookie(""));
  EXPECT_FALSE(IsValidCookie("b55ml6iwewcsde4xpgpyfratczzmvfhkmzt"));    // 35
  EXPECT_FALSE(IsValidCookie("b55ml6iwewcsde4xpgpyfratczzmvfhkmzt2a"));  // 37
  EXPECT_FALSE(IsValidCookie("B55ml6iwewcsde4xpgpyfratczzmvfhkmzt2"));   // upper case
  EXPECT_FALSE(IsValidCookie("b55ml6iwewcsde4xpgpyfratczzmvfhkmzt1"));   // '1' not base32
  EXPECT_FALSE(IsValidCookie(std::string_view("b55ml6iwewcsde4xpgpyfratczzmvfhkmz\0t", 36)));
}

TEST(WireTest, UdpRepliesAccepted) {
  const uint8_t new_reply[] = {0x36, 0x37, 0x38, 0x39};
  const uint8_t swapped[] = {0x39, 0x38, 0x37, 0x36};
  const uint8_t legacy_le[] = {0xB1, 0x68, 0xDE, 0x3A};
  const uint8_t legacy_be[] = {0x3A, 0xDE, 0x68, 0xB1};
  const uint8_t hello_311[] = {0x15, 0xCD, 0x5B, 0x07};  // 123456789: a hello, not a reply
  EXPECT_TRUE(IsAcceptedUdpReply(new_reply, 4));
  EXPECT_TRUE(IsAcceptedUdpReply(swapped, 4));
  EXPECT_TRUE(IsAcceptedUdpReply(legacy_le, 4));
  EXPECT_TRUE(IsAcceptedUdpReply(legacy_be, 4));
  EXPECT_FALSE(IsAcceptedUdpReply(hello_311, 4));
  EXPECT_FALSE(IsAcceptedUdpReply(new_reply, 3));
  EXPECT_FALSE(IsAcceptedUdpReply(nullptr, 4));
  EXPECT_EQ(kUdpHello[0], 0x39);
  EXPECT_EQ(kUdpReply[0], 0x36);
  EXPECT_TRUE(IsAcceptedUdpHello(kUdpHello, 4));
  EXPECT_TRUE(IsAcceptedUdpHello(new_reply, 4));  // a big-endian 3.12 client's hello
  EXPECT_TRUE(IsAcceptedUdpHello(hello_311, 4));
  const uint8_t hello_311_be[] = {0x07, 0x5B, 0xCD, 0x15};
  EXPECT_TRUE(IsAcceptedUdpHello(hello_311_be, 4));
  const uint8_t junk[] = {'x', 'x', 'x', 'x', 'x'};
  EXPECT_FALSE(IsAcceptedUdpHello(junk, 4));
  EXPECT_FALSE(IsAcceptedUdpHello(junk, 1));
  EXPECT_FALSE(IsAcceptedUdpHello(kUdpHello, 3));
  EXPECT_FALSE(IsAcceptedUdpHello(kUdpHello, 0));
  EXPECT_FALSE(IsAcceptedUdpHello(nullptr, 4));
}

TEST(WireTest, UdpHeader32BitIsBigEndian) {
  uint8_t out[12];
  EncodeUdpHeader({0x01020304, 0x0A0B0C0D, 0x1122334455667788ULL}, false, out);
  const uint8_t expected[] = {1, 2, 3, 4, 0x0A, 0x0B, 0x0C, 0x0D, 0x55, 0x66, 0x77, 0x88};
  EXPECT_EQ(0, std::memcmp(out, expected, sizeof expected));
  auto back = DecodeUdpHeader(out, sizeof out, false);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->sec, 0x01020304u);
  EXPECT_EQ(back->usec, 0x0A0B0C0Du);
  EXPECT_EQ(back->seq, 0x55667788u);  // truncated to 32 bits, as iperf3 does
}

TEST(WireTest, UdpHeader64BitRoundTrip) {
  uint8_t out[16];
  const UdpHeader header{314, 999999, 0x0000000100000002ULL};
  EncodeUdpHeader(header, true, out);
  EXPECT_EQ(out[8], 0);
  EXPECT_EQ(out[11], 1);
  EXPECT_EQ(out[15], 2);
  auto back = DecodeUdpHeader(out, sizeof out, true);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->sec, 314u);
  EXPECT_EQ(back->usec, 999999u);
  EXPECT_EQ(back->seq, header.seq);
}

TEST(WireTest, ShortDatagramRefused) {
  uint8_t buffer[16] = {};
  EXPECT_FALSE(DecodeUdpHeader(buffer, 11, false));
  EXPECT_FALSE(DecodeUdpHeader(buffer, 15, true));
  EXPECT_TRUE(DecodeUdpHeader(buffer, 12, false));
  EXPECT_EQ(UdpHeaderBytes(true), 16u);
}

TEST(WireTest, IperfErrorTexts) {
  EXPECT_EQ(IperfErrorText(iperf_errno::kStreamListen), "unable to start stream listener");
  EXPECT_EQ(IperfErrorText(121), "the server is busy running a test. try again later");
  EXPECT_EQ(IperfErrorText(iperf_errno::kAuthTest), "test authorization failed");
  EXPECT_EQ(IperfErrorText(9999), "unknown iperf3 error 9999");
}

}  // namespace
}  // namespace nicbench::protocol
