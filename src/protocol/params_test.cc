#include "protocol/params.h"

#include <gtest/gtest.h>

namespace nicbench::protocol {
namespace {

using namespace std::chrono_literals;
using record::Direction;
using record::TestSpec;
using record::Transport;
using record::ZeroCopy;

// Parameter documents written by the stock iperf 3.12 client (Debian), captured on 127.0.0.1 by a
// listener that sent PARAM_EXCHANGE and printed what followed; the command is beside each one.
constexpr const char* kObservedT1B50M =  // iperf3 -c 127.0.0.1 -t 1 -b 50M
    R"({"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"len":131072,"bandwidth":50000000,"pacing_timer":1000,"client_version":"3.12"})";
constexpr const char* kObservedN1M =  // -n 1M
    R"({"tcp":true,"omit":0,"time":0,"num":1048576,"blockcount":0,"parallel":1,"len":131072,"pacing_timer":1000,"client_version":"3.12"})";
constexpr const char* kObservedBidirK100 =  // --bidir -k 100 -l 64K
    R"({"tcp":true,"omit":0,"time":0,"num":0,"blockcount":100,"parallel":1,"bidirectional":true,"len":65536,"pacing_timer":1000,"client_version":"3.12"})";
constexpr const char* kObservedUdpReverse =  // -u -b 10M -l 1400 -P 2 -R
    R"({"udp":true,"omit":0,"time":10,"num":0,"blockcount":0,"parallel":2,"reverse":true,"len":1400,"bandwidth":10000000,"pacing_timer":1000,"client_version":"3.12"})";
constexpr const char* kObservedUdp64 =  // -u -t 2 --udp-counters-64bit -l 1000
    R"({"udp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":1000,"bandwidth":1048576,"pacing_timer":1000,"udp_counters_64bit":1,"client_version":"3.12"})";
// -R -P 4 -t 5 -O 2 -w 256K -M 1400 -N -C cubic -S 16 -T mytitle --extra-data xyz
// --get-server-output --repeating-payload -Z --fq-rate 100M --pacing-timer 500
constexpr const char* kObservedMany =
    R"({"tcp":true,"omit":2,"time":5,"num":0,"blockcount":0,"MSS":1400,"nodelay":true,"parallel":4,"reverse":true,"window":262144,"len":131072,"fqrate":100000000,"pacing_timer":500,"TOS":16,"title":"mytitle","extra_data":"xyz","congestion":"cubic","get_server_output":1,"repeating_payload":1,"zerocopy":1,"client_version":"3.12"})";

TestSpec ManySpec() {
  TestSpec spec;
  spec.direction = Direction::kReverse;
  spec.parallel = 4;
  spec.duration = 5s;
  spec.omit = 2s;
  spec.window_bytes = 262144;
  spec.mss_bytes = 1400;
  spec.no_delay = true;
  spec.congestion = "cubic";
  spec.tos = 16;
  spec.title = "mytitle";
  spec.extra_data = "xyz";
  spec.get_server_output = true;
  spec.repeating_payload = true;
  spec.zero_copy = ZeroCopy::kSendfile;
  spec.fq_rate_bits_per_second = 100000000;
  spec.pacing_timer_us = 500;
  return spec;
}

TEST(EncodeParamsTest, MatchesIperf312ByteForByte) {
  TestSpec spec;
  spec.duration = 1s;
  spec.rate_bits_per_second = 50000000;
  EXPECT_EQ(EncodeParams(spec).dump(), kObservedT1B50M);

  TestSpec bytes;
  bytes.bytes = 1048576;
  EXPECT_EQ(EncodeParams(bytes).dump(), kObservedN1M);

  TestSpec blocks;
  blocks.blocks = 100;
  blocks.block_bytes = 65536;
  blocks.direction = Direction::kBidirectional;
  EXPECT_EQ(EncodeParams(blocks).dump(), kObservedBidirK100);

  TestSpec udp;
  udp.transport = Transport::kUdp;
  udp.rate_bits_per_second = 10000000;
  udp.block_bytes = 1400;
  udp.parallel = 2;
  udp.direction = Direction::kReverse;
  EXPECT_EQ(EncodeParams(udp).dump(), kObservedUdpReverse);

  TestSpec udp64;
  udp64.transport = Transport::kUdp;
  udp64.duration = 2s;
  udp64.block_bytes = 1000;
  udp64.rate_bits_per_second = 1048576;
  udp64.udp_counters_64bit = true;
  EXPECT_EQ(EncodeParams(udp64).dump(), kObservedUdp64);

  EXPECT_EQ(EncodeParams(ManySpec()).dump(), kObservedMany);
}

TEST(EncodeParamsTest, FractionalSecondsRoundUp) {
  TestSpec spec;
  spec.duration = 1500ms;
  spec.omit = 200ms;
  auto j = EncodeParams(spec);
  EXPECT_EQ(j["time"], 2);
  EXPECT_EQ(j["omit"], 1);
}

TEST(EncodeParamsTest, ExtensionFollowsClientVersion) {
  TestSpec spec;
  spec.duration = 1500ms;
  spec.interval = 250ms;
  spec.skip_rx_copy = true;
  const std::string text = EncodeParams(spec, Extension{}).dump();
  EXPECT_NE(text.find(R"("client_version":"3.12","nicbench":{"version":1,"want_samples":true,)"
                      R"("interval_ms":250,"time_ms":1500,"omit_ms":0,"skip_rx_copy":true}})"),
            std::string::npos)
      << text;
}

TEST(DecodeParamsTest, ObservedDocumentsDecode) {
  auto many = DecodeParams(kObservedMany);
  ASSERT_TRUE(many) << many.error().message;
  const TestSpec& s = many->spec;
  EXPECT_EQ(s.transport, Transport::kTcp);
  EXPECT_EQ(s.direction, Direction::kReverse);
  EXPECT_EQ(s.parallel, 4);
  EXPECT_EQ(s.duration, 5s);
  EXPECT_EQ(s.omit, 2s);
  EXPECT_EQ(s.mss_bytes, 1400u);
  EXPECT_TRUE(s.no_delay);
  EXPECT_EQ(s.window_bytes, 262144u);
  EXPECT_EQ(s.block_bytes, 131072u);
  EXPECT_EQ(s.fq_rate_bits_per_second, 100000000u);
  EXPECT_EQ(s.pacing_timer_us, 500u);
  EXPECT_EQ(s.tos, 16);
  EXPECT_EQ(s.title, "mytitle");
  EXPECT_EQ(s.extra_data, "xyz");
  EXPECT_EQ(s.congestion, "cubic");
  EXPECT_TRUE(s.get_server_output);
  EXPECT_TRUE(s.repeating_payload);
  EXPECT_EQ(s.zero_copy, ZeroCopy::kSendfile);
  EXPECT_EQ(many->client_version, "3.12");
  EXPECT_FALSE(many->peer_is_nicbench());
  EXPECT_FALSE(record::Validate(s).has_value());

  auto udp = DecodeParams(kObservedUdp64);
  ASSERT_TRUE(udp);
  EXPECT_EQ(udp->spec.transport, Transport::kUdp);
  EXPECT_TRUE(udp->spec.udp_counters_64bit);
  EXPECT_EQ(udp->spec.rate_bits_per_second, 1048576u);

  auto bidir = DecodeParams(kObservedBidirK100);
  ASSERT_TRUE(bidir);
  EXPECT_EQ(bidir->spec.direction, Direction::kBidirectional);
  EXPECT_EQ(bidir->spec.blocks, 100u);
  EXPECT_EQ(bidir->spec.duration, 0ms);
}

TEST(DecodeParamsTest, LiveSamplesTravelInTheExtensionAndAreTypeChecked) {
  Extension ext;
  ext.live_samples = true;
  auto back = DecodeParams(EncodeParams(TestSpec{}, ext).dump());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->ext->live_samples);
  EXPECT_FALSE(
      DecodeParams(R"({"tcp":true,"time":1,"nicbench":{"version":1,"live_samples":"yes"}})"));
}

TEST(DecodeParamsTest, AnnounceTravelsInTheExtensionAndIsTypeChecked) {
  Extension ext;
  ext.announce = true;
  auto back = DecodeParams(EncodeParams(TestSpec{}, ext).dump());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->ext->announce);
  auto older = DecodeParams(R"({"tcp":true,"time":1,"nicbench":{"version":1}})");
  ASSERT_TRUE(older) << older.error().message;
  EXPECT_FALSE(older->ext->announce) << "a client that does not ask never gets NICBENCH_READY";
  EXPECT_FALSE(DecodeParams(R"({"tcp":true,"time":1,"nicbench":{"version":1,"announce":1}})"));
}

TEST(DecodeParamsTest, ProofNonceAndCrrTokenTravelInTheExtensionAndAreShapeChecked) {
  Extension ext;
  ext.prove_key = std::string(43, 'A') + "=";
  ext.crr_token = MakeCrrToken();
  EXPECT_EQ(ext.crr_token.size(), kCrrTokenChars);
  EXPECT_NE(ext.crr_token, MakeCrrToken());
  auto back = DecodeParams(EncodeParams(TestSpec{}, ext).dump());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->ext->prove_key, ext.prove_key);
  EXPECT_EQ(back->ext->crr_token, ext.crr_token);
  auto older = DecodeParams(R"({"tcp":true,"time":1,"nicbench":{"version":1}})");
  ASSERT_TRUE(older);
  EXPECT_TRUE(older->ext->prove_key.empty());
  EXPECT_TRUE(older->ext->crr_token.empty());
  for (const char* bad :
       {R"("prove_key":1)", R"("prove_key":"short")", R"("prove_key":"")", R"("crr_token":true)",
        R"("crr_token":"0123")", R"("crr_token":"0123456789ABCDEF0123456789abcdef")",
        R"("crr_token":"0123456789abcdef0123456789abcdeg")"}) {
    auto refused =
        DecodeParams(std::string(R"({"tcp":true,"time":1,"nicbench":{"version":1,)") + bad + "}}");
    EXPECT_FALSE(refused) << bad;
  }
  auto long_nonce = DecodeParams(R"({"tcp":true,"nicbench":{"version":1,"prove_key":")" +
                                 std::string(100000, 'A') + "\"}}");
  ASSERT_FALSE(long_nonce);
}

TEST(DecodeParamsTest, UdpOffloadTravelsInTheExtensionOnly) {
  TestSpec spec;
  spec.transport = record::Transport::kUdp;
  spec.udp_offload = true;
  const std::string stock = EncodeParams(spec).dump();
  EXPECT_EQ(stock.find("offload"), std::string::npos) << "a stock server sees a 3.12 document";
  auto back = DecodeParams(EncodeParams(spec, Extension{}).dump());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->spec.udp_offload);
  auto plain = DecodeParams(EncodeParams(TestSpec{}, Extension{}).dump());
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->spec.udp_offload);
  EXPECT_FALSE(DecodeParams(R"({"udp":true,"time":1,"nicbench":{"version":1,"udp_offload":1}})"));
}

TEST(DecodeParamsTest, RoundTripWithExtension) {
  TestSpec spec = ManySpec();
  spec.duration = 2500ms;
  spec.interval = 500ms;
  spec.zero_copy = ZeroCopy::kMsgZerocopy;
  spec.skip_rx_copy = true;
  auto back = DecodeParams(EncodeParams(spec, Extension{}).dump());
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_TRUE(back->peer_is_nicbench());
  EXPECT_EQ(back->ext->version, 1);
  EXPECT_TRUE(back->ext->want_samples);
  EXPECT_FALSE(back->ext->live_samples);
  EXPECT_EQ(back->spec.duration, 2500ms);
  EXPECT_EQ(back->spec.interval, 500ms);
  EXPECT_EQ(back->spec.zero_copy, ZeroCopy::kMsgZerocopy);
  EXPECT_TRUE(back->spec.skip_rx_copy);
  EXPECT_EQ(back->spec.title, spec.title);
  EXPECT_EQ(back->spec.omit, spec.omit);
}

TEST(DecodeParamsTest, FlagsArePresenceAsIn312) {
  auto p = DecodeParams(R"({"tcp":false,"time":1,"parallel":1,"reverse":false,"nodelay":0})");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->spec.transport, Transport::kTcp);
  EXPECT_EQ(p->spec.direction, Direction::kReverse);  // 3.12 tests presence, not truth
  EXPECT_TRUE(p->spec.no_delay);
  auto zc = DecodeParams(R"({"tcp":true,"time":1,"zerocopy":0})");
  ASSERT_TRUE(zc);
  EXPECT_EQ(zc->spec.zero_copy, ZeroCopy::kOff);  // read as an integer by 3.12
}

TEST(DecodeParamsTest, UnknownKeysIgnoredAndDefaultsKept) {
  auto p = DecodeParams(R"({"udp":true,"time":3,"gso":1,"mptcp":true,"whatever":[1,{"a":2}]})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->spec.transport, Transport::kUdp);
  EXPECT_EQ(p->spec.parallel, 1);
  EXPECT_EQ(p->spec.duration, 3s);
  auto none = DecodeParams(R"({"time":3})");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->spec.transport, Transport::kTcp);
}

TEST(DecodeParamsTest, MinusOneQuirkWhereMeaningful) {
  auto p = DecodeParams(R"({"tcp":true,"time":1,"server_affinity":18446744073709551615})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->server_affinity, -1);
  auto q = DecodeParams(R"({"tcp":true,"time":1,"server_affinity":9223372036854775808})");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->server_affinity, -1);
  // Where -1 means nothing, the same huge value is a negative length: refused.
  EXPECT_FALSE(DecodeParams(R"({"tcp":true,"time":1,"len":18446744073709551615})"));
  EXPECT_FALSE(DecodeParams(R"({"tcp":true,"num":18446744073709551615})"));
}

TEST(DecodeParamsTest, ExtrasOutsideTestSpec) {
  auto p = DecodeParams(
      R"({"tcp":true,"time":1,"flowlabel":77,"dont_fragment":1,"authtoken":"abc","congestion_used":"bbr"})");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->flowlabel, 77);
  EXPECT_TRUE(p->dont_fragment);
  EXPECT_TRUE(p->has_authtoken);
  EXPECT_EQ(p->authtoken, "abc");
  EXPECT_EQ(p->congestion_used, "bbr");
}

// Where 3.12 puts the token (captured from `iperf3 -c --username`): right before client_version.
TEST(EncodeParamsTest, AuthTokenGoesBeforeClientVersion) {
  TestSpec spec;
  spec.duration = std::chrono::seconds(1);
  const std::string text = EncodeParams(spec, std::nullopt, "VE9LRU4=").dump();
  EXPECT_NE(text.find(R"("pacing_timer":1000,"authtoken":"VE9LRU4=","client_version":"3.12"})"),
            std::string::npos)
      << text;
  EXPECT_EQ(EncodeParams(spec).dump().find("authtoken"), std::string::npos);
}

TEST(DecodeParamsTest, AuthTokenMustBeAShortString) {
  EXPECT_FALSE(DecodeParams(R"({"tcp":true,"authtoken":5})"));
  EXPECT_FALSE(DecodeParams(R"({"tcp":true,"authtoken":")" + std::string(5000, 'A') + R"("})"));
}

// CVE-2024-53580 class: every typed field, given every wrong type, is a clean error naming it.
TEST(DecodeParamsTest, WrongTypesForEveryFieldAreCleanErrors) {
  const char* int_keys[] = {"omit",          "time",           "num", "blockcount", "MSS",
                            "parallel",      "window",         "len", "bandwidth",  "fqrate",
                            "pacing_timer",  "burst",          "TOS", "flowlabel",  "zerocopy",
                            "dont_fragment", "server_affinity"};
  const char* wrong_for_int[] = {R"("12")",    "1.5",  "1.0",  "[1]",
                                 R"({"a":1})", "true", "null", "1e400"};
  for (const char* key : int_keys) {
    for (const char* value : wrong_for_int) {
      const std::string doc = std::string(R"({"tcp":true,")") + key + "\":" + value + "}";
      auto p = DecodeParams(doc);
      ASSERT_FALSE(p) << doc;
      if (std::string_view(value) != "1e400") {  // not even valid JSON for the parser
        EXPECT_NE(p.error().message.find(key), std::string::npos) << p.error().message;
      }
    }
  }
  const char* string_keys[] = {"title", "extra_data", "congestion", "congestion_used",
                               "client_version"};
  for (const char* key : string_keys) {
    for (const char* value : {"1", "[\"x\"]", "{}", "true", "null"}) {
      const std::string doc = std::string(R"({"tcp":true,"time":1,")") + key + "\":" + value + "}";
      auto p = DecodeParams(doc);
      ASSERT_FALSE(p) << doc;
      EXPECT_NE(p.error().message.find(key), std::string::npos) << p.error().message;
    }
  }
}

TEST(DecodeParamsTest, NegativeAndOversizedValuesRefused) {
  for (const char* doc :
       {R"({"tcp":true,"len":-1})", R"({"tcp":true,"parallel":-5})", R"({"tcp":true,"time":-1})",
        R"({"tcp":true,"window":4294967296})", R"({"tcp":true,"len":2147483648})",
        R"({"tcp":true,"omit":-1})", R"({"tcp":true,"flowlabel":1048576})"}) {
    EXPECT_FALSE(DecodeParams(doc)) << doc;
  }
}

TEST(DecodeParamsTest, StructuralProblemsRefused) {
  EXPECT_FALSE(DecodeParams("[]"));
  EXPECT_FALSE(DecodeParams("\"tcp\""));
  EXPECT_FALSE(DecodeParams("42"));
  EXPECT_FALSE(DecodeParams(""));
  EXPECT_FALSE(DecodeParams("{\"tcp\":true"));
  EXPECT_FALSE(DecodeParams(R"({"tcp":true,"udp":true,"time":1})"));
  EXPECT_FALSE(DecodeParams(R"({"sctp":true,"time":1})"));
  EXPECT_FALSE(DecodeParams(R"({"tcp":true,"time":1,"reverse":true,"bidirectional":true})"));
  EXPECT_FALSE(DecodeParams(R"({"tcp":true,"time":1,"nicbench":1})"));
  EXPECT_FALSE(DecodeParams(R"({"tcp":true,"time":1,"nicbench":{}})"));  // no version
  EXPECT_FALSE(DecodeParams(R"({"tcp":true,"time":1,"nicbench":{"version":1,"want_samples":1}})"));
  EXPECT_FALSE(DecodeParams(R"({"tcp":true,"time":1,"nicbench":{"version":1,"time_ms":-1}})"));
  EXPECT_FALSE(DecodeParams(std::string(100, '[') + std::string(100, ']')));
}

TEST(DecodeParamsTest, DecodedButInvalidSpecIsLeftToValidate) {
  auto p = DecodeParams(R"({"tcp":true,"time":1,"parallel":500})");
  ASSERT_TRUE(p);
  auto problem = record::Validate(p->spec, record::SpecLimits{.max_parallel = 128});
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->violation, record::SpecViolation::kParallel);
}

}  // namespace
}  // namespace nicbench::protocol
