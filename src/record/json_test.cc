#include "record/json.h"

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "record/json_test_records.h"

namespace nicbench::record {
namespace {

using nlohmann::json;
using testing::MakeBidirRun;
using testing::MakeNic;
using testing::MakeSample;
using testing::MakeTcpRun;
using testing::MakeUdpRun;

EndpointRecord MakeEndpoint() { return MakeTcpRun().remote.value(); }

TEST(RecordJsonTest, EndpointRoundTripsUnchanged) {
  const EndpointRecord original = MakeEndpoint();
  const json encoded = original;
  // Through text, as the protocol carries it.
  Result<EndpointRecord> decoded = EndpointFromJson(json::parse(encoded.dump()));
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
  EXPECT_EQ(json(*decoded), encoded);
  EXPECT_EQ(decoded->role, Role::kServer);
  EXPECT_EQ(decoded->host.hostname.value(), "h2");
  ASSERT_EQ(decoded->samples.size(), 2u);
  EXPECT_DOUBLE_EQ(decoded->samples[1].cpus.value()[1].softirq, 90);
  EXPECT_EQ(decoded->samples[0].irqs.value()[0].per_cpu[1], 16000u);
  EXPECT_EQ(decoded->nic.rings.value().rx_max, 4096u);
  EXPECT_EQ(decoded->intervals[0].streams[0].tcp_info.why(), Missing::kAbsent);
}

// The NIC's flow control settings (issue 28) travel and read back; a record from before them
// reads them as unknown, not as "off".
TEST(RecordJsonTest, PauseSettingsRoundTripAndOlderRecordsLackThem) {
  EndpointRecord end = MakeEndpoint();
  end.nic.pause = PauseSettings{true, true, false};
  Result<EndpointRecord> back = EndpointFromJson(json::parse(json(end).dump()));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  ASSERT_TRUE(back->nic.pause.known());
  EXPECT_TRUE(back->nic.pause.value().autoneg);
  EXPECT_TRUE(back->nic.pause.value().rx);
  EXPECT_FALSE(back->nic.pause.value().tx);
  json older = end;
  older["nic"].erase("pause");
  Result<EndpointRecord> old = EndpointFromJson(older);
  ASSERT_TRUE(old.has_value()) << old.error().message;
  EXPECT_FALSE(old->nic.pause.known());
}

// RrStats keeps the raw count and its seconds; JSON keeps `transactions_per_second`, written from
// them, and a record from before `seconds` (which has only the rate) reads back with that rate.
TEST(RecordJsonTest, RrRateIsWrittenFromTheCountsAndAnOlderRecordsRateReadsBack) {
  RrStats rr;
  rr.transactions = 41000;
  rr.seconds = 2;
  const json written = rr;
  EXPECT_DOUBLE_EQ(written["transactions_per_second"].get<double>(), 20500);
  EXPECT_DOUBLE_EQ(written["seconds"].get<double>(), 2);
  json older = written;
  older.erase("seconds");
  older["transactions_per_second"] = 16656.1;
  older["transactions"] = 166561;
  const RrStats back = older.get<RrStats>();
  EXPECT_NEAR(TransactionsPerSecond(back), 16656.1, 16656.1 * 1e-15);
  EXPECT_NEAR(back.seconds, 10, 1e-9);
  older["transactions_per_second"] = "fast";
  EXPECT_THROW((void)older.get<RrStats>(), std::exception);
  older.erase("transactions_per_second");
  EXPECT_THROW((void)older.get<RrStats>(), std::exception) << "neither seconds nor the rate";
}

TEST(RecordJsonTest, TcpInfoFromAnOlderPeerWithoutReorderingCountsReads) {
  json doc = MakeTcpRun();
  json& info = doc["local"]["intervals"][0]["streams"][0]["tcp_info"];
  ASSERT_TRUE(info.is_object()) << doc["local"]["intervals"][0].dump();
  EXPECT_EQ(info["dsack_dups"], 1);
  info.erase("reordering");
  info.erase("reord_seen");
  info.erase("dsack_dups");
  Result<RunRecord> decoded = RunRecordFromJson(doc);
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
  EXPECT_EQ(decoded->local.intervals[0].streams[0].tcp_info.value().dsack_dups, 0u);
  EXPECT_EQ(decoded->local.intervals[0].streams[0].tcp_info.value().snd_mss, 1448u);
}

TEST(RecordJsonTest, UnknownIsNullWithReasonBeside) {
  const json nic = MakeNic();
  EXPECT_TRUE(nic["coalescing"].is_null());
  EXPECT_EQ(nic["unknown"]["coalescing"], "permission denied: needs CAP_NET_ADMIN");
  EXPECT_EQ(nic["unknown"]["firmware_version"], "not supported");
  EXPECT_EQ(nic["speed_mbps"], 100);
  EXPECT_FALSE(nic["unknown"].contains("speed_mbps"));
}

TEST(RecordJsonTest, UnknownReasonsRoundTrip) {
  const Result<NicFacts> nic = NicFactsFromJson(json(MakeNic()));
  ASSERT_TRUE(nic.has_value()) << nic.error().message;
  EXPECT_FALSE(nic->coalescing.known());
  EXPECT_EQ(nic->coalescing.why(), Missing::kPermissionDenied);
  EXPECT_EQ(nic->coalescing.detail(), "needs CAP_NET_ADMIN");
  EXPECT_EQ(nic->firmware_version.why(), Missing::kNotSupported);
  EXPECT_EQ(nic->firmware_version.detail(), "");
}

TEST(RecordJsonTest, AbsentMeasuredMemberReadsAsNotReported) {
  json j = MakeNic();
  j.erase("qdisc");
  j["driver"] = nullptr;  // null with no reason at all
  j["unknown"].erase("driver");
  const Result<NicFacts> nic = NicFactsFromJson(j);
  ASSERT_TRUE(nic.has_value()) << nic.error().message;
  EXPECT_EQ(nic->qdisc.why(), Missing::kNotReported);
  EXPECT_EQ(nic->driver.why(), Missing::kNotReported);
}

TEST(RecordJsonTest, UnrecognisedReasonTextIsKept) {
  json j = MakeNic();
  j["unknown"]["coalescing"] = "asleep";
  const Result<NicFacts> nic = NicFactsFromJson(j);
  ASSERT_TRUE(nic.has_value());
  EXPECT_EQ(nic->coalescing.why(), Missing::kError);
  EXPECT_EQ(nic->coalescing.detail(), "asleep");
}

TEST(RecordJsonTest, NonFiniteDoublesAreWrittenAsNull) {
  HostInterval h = MakeSample(0, 1);
  h.cpus.value()[0].user = std::numeric_limits<double>::quiet_NaN();
  h.irqs.value()[0].per_second = std::numeric_limits<double>::infinity();
  const json j = h;
  EXPECT_TRUE(j["cpus"][0]["user"].is_null());
  EXPECT_TRUE(j["irqs"][0]["per_second"].is_null());
  EXPECT_EQ(j.dump().find("nan"), std::string::npos);
  // Reading it back is an error: a NaN can only come from a bug upstream.
  EXPECT_FALSE(HostIntervalFromJson(j).has_value());
}

TEST(RecordJsonTest, RunRecordRoundTrips) {
  for (const RunRecord& run : {MakeTcpRun(), MakeUdpRun(false), MakeBidirRun()}) {
    const json encoded = run;
    Result<RunRecord> decoded = RunRecordFromJson(json::parse(encoded.dump()));
    ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
    EXPECT_EQ(json(*decoded), encoded);
    EXPECT_EQ(decoded->spec.direction, run.spec.direction);
    EXPECT_EQ(decoded->remote.known(), run.remote.known());
  }
}

TEST(RecordJsonTest, TestSpecUsesNamesAndMilliseconds) {
  TestSpec spec;
  spec.direction = Direction::kBidirectional;
  spec.omit = std::chrono::milliseconds(1500);
  spec.zero_copy = ZeroCopy::kMsgZerocopy;
  const json j = spec;
  EXPECT_EQ(j["direction"], "bidirectional");
  EXPECT_EQ(j["omit_ms"], 1500);
  EXPECT_EQ(j["zero_copy"], "msg_zerocopy");
  TestSpec back = j.get<TestSpec>();
  EXPECT_EQ(back.omit, spec.omit);
  EXPECT_EQ(back.zero_copy, spec.zero_copy);
}

// Each mutation of a good endpoint document must give an error naming the member.
struct HostileCase {
  const char* name;
  void (*mutate)(json&);
  const char* path;  // expected in the message
};

const HostileCase kHostile[] = {
    {"not an object", [](json& j) { j = json::array(); }, "expected an object"},
    {"missing role", [](json& j) { j.erase("role"); }, "role: missing"},
    {"role is a number", [](json& j) { j["role"] = 5; }, "role: expected a string"},
    {"negative ring", [](json& j) { j["nic"]["rings"]["rx"] = -1; }, "nic.rings.rx"},
    {"ring overflow", [](json& j) { j["nic"]["rings"]["rx"] = 1ull << 40; }, "nic.rings.rx"},
    {"huge double for uint", [](json& j) { j["nic"]["mtu"] = 1e300; }, "nic.mtu"},
    {"string for bool", [](json& j) { j["nic"]["loopback"] = "yes"; }, "nic.loopback"},
    {"samples not array", [](json& j) { j["samples"] = json::object(); }, "samples"},
    {"bad nested sample", [](json& j) { j["samples"][1]["cpus"][1]["user"] = "x"; },
     "samples[1].cpus[1].user"},
    {"per_cpu element", [](json& j) { j["samples"][0]["irqs"][0]["per_cpu"][1] = true; },
     "samples[0].irqs[0].per_cpu[1]"},
    {"unknown not object", [](json& j) { j["nic"]["unknown"] = 3; }, "unknown"},
    {"reason not string", [](json& j) { j["nic"]["unknown"]["coalescing"] = json::array(); },
     "unknown.coalescing"},
    {"cpu number too big for int", [](json& j) { j["samples"][0]["cpus"][0]["cpu"] = 1ull << 40; },
     "samples[0].cpus[0].cpu"},
    {"bad counter map", [](json& j) { j["nic"]["counters"]["rx_dropped"] = -3; },
     "nic.counters.rx_dropped"},
    {"stream id float", [](json& j) { j["intervals"][0]["streams"][0]["id"] = 1.5; },
     "intervals[0].streams[0].id"},
};

TEST(RecordJsonTest, HostileDocumentsGiveErrorsNotCrashes) {
  const json good = MakeEndpoint();
  for (const HostileCase& c : kHostile) {
    json j = good;
    c.mutate(j);
    const Result<EndpointRecord> r = EndpointFromJson(j);
    ASSERT_FALSE(r.has_value()) << c.name;
    EXPECT_NE(r.error().message.find(c.path), std::string::npos)
        << c.name << ": " << r.error().message;
  }
}

TEST(RecordJsonTest, HugeArrayIsRejected) {
  json j = MakeEndpoint();
  j["samples"][0]["net_rx_softirqs"] = json(kMaxJsonElements + 1, json(0));
  const Result<EndpointRecord> r = EndpointFromJson(j);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("too many elements"), std::string::npos);
}

TEST(RecordJsonTest, NullAndScalarsAreErrors) {
  EXPECT_FALSE(EndpointFromJson(json()).has_value());
  EXPECT_FALSE(EndpointFromJson(json(42)).has_value());
  EXPECT_FALSE(EndpointFromJson(json("endpoint")).has_value());
  EXPECT_FALSE(RunRecordFromJson(json::object()).has_value());
}

TEST(RecordJsonTest, NewerSchemaVersionIsRefused) {
  json j = MakeTcpRun();
  j["schema_version"] = kJsonSchemaVersion + 1;
  const Result<RunRecord> r = RunRecordFromJson(j);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("schema_version"), std::string::npos);
}

TEST(RecordJsonTest, ExtraMembersAreIgnored) {
  json j = MakeEndpoint();
  j["from_the_future"] = {{"x", 1}};
  EXPECT_TRUE(EndpointFromJson(j).has_value());
}

}  // namespace
}  // namespace nicbench::record
