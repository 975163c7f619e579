#include "protocol/results.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace nicbench::protocol {
namespace {

// A 3.12 server's results as the receiver of a TCP test (shape observed on the wire; -1 printed
// as 2^64-1 by the 3.12 cJSON).
constexpr const char* kServerReceiver =
    R"({"cpu_util_total":1.2,"cpu_util_user":0.1,"cpu_util_system":1.1,)"
    R"("sender_has_retransmits":18446744073709551615,"congestion_used":"cubic",)"
    R"("streams":[{"id":1,"bytes":6291456,"retransmits":18446744073709551615,"jitter":0,)"
    R"("errors":0,"packets":0,"start_time":0,"end_time":1.000436}]})";

PeerResults Sample() {
  PeerResults r;
  r.cpu_util_total = 3.25;
  r.cpu_util_user = 0;
  r.cpu_util_system = 3.25;
  r.sender_has_retransmits = 1;
  r.congestion_used = "bbr";
  r.streams.push_back({1, 6291456, 0, 0, 0, 0, 0, 1.00016});
  return r;
}

TEST(EncodeResultsTest, ShapeAndIntegersAsIperfWritesThem) {
  EXPECT_EQ(EncodeResults(Sample()).dump(),
            R"({"cpu_util_total":3.25,"cpu_util_user":0,"cpu_util_system":3.25,)"
            R"("sender_has_retransmits":1,"congestion_used":"bbr","streams":[{"id":1,)"
            R"("bytes":6291456,"retransmits":0,"jitter":0,"errors":0,"packets":0,)"
            R"("start_time":0,"end_time":1.00016}]})");
}

TEST(EncodeResultsTest, MinusOneAndNonFiniteValues) {
  PeerResults r = Sample();
  r.sender_has_retransmits = -1;
  r.streams[0].retransmits = -1;
  r.cpu_util_total = std::numeric_limits<double>::quiet_NaN();
  r.streams[0].jitter = std::numeric_limits<double>::infinity();
  const std::string text = EncodeResults(r).dump();
  EXPECT_NE(text.find(R"("sender_has_retransmits":-1)"), std::string::npos);
  EXPECT_NE(text.find(R"("retransmits":-1)"), std::string::npos);
  EXPECT_NE(text.find(R"("cpu_util_total":0,)"), std::string::npos);
  EXPECT_EQ(text.find("null"), std::string::npos);
  EXPECT_TRUE(DecodeResults(text));
}

TEST(DecodeResultsTest, StockServerWithUnsignedMinusOne) {
  auto r = DecodeResults(kServerReceiver);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->sender_has_retransmits, -1);
  EXPECT_EQ(r->congestion_used, "cubic");
  ASSERT_EQ(r->streams.size(), 1u);
  EXPECT_EQ(r->streams[0].id, 1);
  EXPECT_EQ(r->streams[0].bytes, 6291456u);
  EXPECT_EQ(r->streams[0].retransmits, -1);
  EXPECT_DOUBLE_EQ(r->streams[0].end_time, 1.000436);
  EXPECT_FALSE(r->extension);
  EXPECT_FALSE(r->server_output_text);
}

TEST(DecodeResultsTest, RoundTripWithExtrasAndMultipleStreams) {
  PeerResults r = Sample();
  r.streams.push_back({3, 1234, -1, 1.6433154378086327e-05, 7, 900, 0, 2.5});
  r.server_output_text = "Server listening on 5201\n";
  r.extension = nlohmann::json{{"role", "server"}, {"samples", nlohmann::json::array()}};
  auto back = DecodeResults(EncodeResults(r).dump());
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->streams.size(), 2u);
  EXPECT_EQ(back->streams[1].id, 3);
  EXPECT_EQ(back->streams[1].retransmits, -1);
  EXPECT_DOUBLE_EQ(back->streams[1].jitter, 1.6433154378086327e-05);
  EXPECT_EQ(back->streams[1].errors, 7);
  EXPECT_EQ(back->streams[1].packets, 900);
  EXPECT_EQ(back->server_output_text, r.server_output_text);
  ASSERT_TRUE(back->extension);
  EXPECT_EQ((*back->extension)["role"], "server");
}

TEST(DecodeResultsTest, StartAndEndTimeOptional) {
  auto r = DecodeResults(
      R"({"cpu_util_total":1,"cpu_util_user":0,"cpu_util_system":1,"sender_has_retransmits":0,)"
      R"("streams":[{"id":1,"bytes":5,"retransmits":-1,"jitter":0.5,"errors":0,"packets":9}]})");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->streams[0].end_time, 0);
  EXPECT_EQ(r->streams[0].retransmits, -1);
}

nlohmann::json Valid() { return nlohmann::json::parse(kServerReceiver); }

TEST(DecodeResultsTest, EveryRequiredKeyIsRequired) {
  for (const char* key : {"cpu_util_total", "cpu_util_user", "cpu_util_system",
                          "sender_has_retransmits", "streams"}) {
    nlohmann::json doc = Valid();
    doc.erase(key);
    auto r = DecodeResults(doc.dump());
    ASSERT_FALSE(r) << key;
    EXPECT_NE(r.error().message.find(key), std::string::npos) << r.error().message;
  }
  for (const char* key : {"id", "bytes", "retransmits", "jitter", "errors", "packets"}) {
    nlohmann::json doc = Valid();
    doc["streams"][0].erase(key);
    auto r = DecodeResults(doc.dump());
    ASSERT_FALSE(r) << key;
    EXPECT_NE(r.error().message.find(key), std::string::npos) << r.error().message;
  }
}

TEST(DecodeResultsTest, WrongTypesAreCleanErrors) {
  const nlohmann::json wrong[] = {"1", nlohmann::json::array({1}), nlohmann::json::object(), true,
                                  nullptr};
  for (const char* key :
       {"cpu_util_total", "cpu_util_user", "cpu_util_system", "sender_has_retransmits", "streams",
        "congestion_used", "server_output_text", "server_output_json", "nicbench"}) {
    for (const nlohmann::json& value : wrong) {
      nlohmann::json doc = Valid();
      doc[key] = value;
      const bool fine_object =
          value.is_object() &&
          (std::string_view(key) == "server_output_json" || std::string_view(key) == "nicbench");
      const bool fine_string = value.is_string() && (std::string_view(key) == "congestion_used" ||
                                                     std::string_view(key) == "server_output_text");
      EXPECT_EQ(static_cast<bool>(DecodeResults(doc.dump())), fine_object || fine_string)
          << key << "=" << value.dump();
    }
  }
  for (const char* key :
       {"id", "bytes", "retransmits", "jitter", "errors", "packets", "start_time", "end_time"}) {
    for (const nlohmann::json& value : wrong) {
      nlohmann::json doc = Valid();
      doc["streams"][0][key] = value;
      EXPECT_FALSE(DecodeResults(doc.dump())) << key << "=" << value.dump();
    }
  }
}

TEST(DecodeResultsTest, RangeAndStructureProblems) {
  auto with_stream = [](const char* key, nlohmann::json value) {
    nlohmann::json doc = Valid();
    doc["streams"][0][key] = std::move(value);
    return doc.dump();
  };
  EXPECT_FALSE(DecodeResults(with_stream("id", 0)));
  EXPECT_FALSE(DecodeResults(with_stream("id", 2147483648LL)));
  EXPECT_FALSE(DecodeResults(with_stream("id", 1.5)));
  EXPECT_FALSE(DecodeResults(with_stream("bytes", -1)));
  EXPECT_FALSE(DecodeResults(with_stream("bytes", 18446744073709551615ULL)));
  EXPECT_FALSE(DecodeResults(with_stream("errors", -3)));
  EXPECT_FALSE(DecodeResults(with_stream("jitter", -0.5)));
  EXPECT_FALSE(DecodeResults(with_stream("retransmits", -2)));
  nlohmann::json doc = Valid();
  doc["sender_has_retransmits"] = 2;
  EXPECT_FALSE(DecodeResults(doc.dump()));
  doc = Valid();
  doc["streams"].push_back(doc["streams"][0]);  // the same id twice
  EXPECT_FALSE(DecodeResults(doc.dump()));
  doc = Valid();
  doc["streams"] = nlohmann::json::array({42});
  EXPECT_FALSE(DecodeResults(doc.dump()));
  doc = Valid();
  nlohmann::json many = nlohmann::json::array();
  for (int id = 1; id <= static_cast<int>(kMaxResultStreams) + 1; ++id) {
    nlohmann::json s = Valid()["streams"][0];
    s["id"] = id;
    many.push_back(s);
  }
  doc["streams"] = many;
  EXPECT_FALSE(DecodeResults(doc.dump()));
  EXPECT_FALSE(DecodeResults("[]"));
  EXPECT_FALSE(DecodeResults("not json"));
  EXPECT_FALSE(DecodeResults(std::string(40, '{')));
}

}  // namespace
}  // namespace nicbench::protocol
