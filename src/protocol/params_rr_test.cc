#include <gtest/gtest.h>

#include "protocol/params.h"

namespace nicbench::protocol {
namespace {

TEST(ParamsRr, RidesInTheExtensionAndComesBack) {
  record::TestSpec spec;
  spec.rr.mode = record::RrMode::kCrr;
  spec.rr.request_bytes = 100;
  spec.rr.response_bytes = 2000;
  spec.rr.burst = 4;
  spec.rr.timeout_ms = 50;
  EXPECT_FALSE(EncodeParams(spec, Extension{})["nicbench"]["rr"].contains("spin_us"))
      << "left out when 0, as an older nicbench sends it";
  spec.rr.spin_us = 40;
  const auto doc = EncodeParams(spec, Extension{});
  EXPECT_TRUE(doc["nicbench"].contains("rr"));
  auto decoded = DecodeParams(doc.dump());
  ASSERT_TRUE(decoded) << decoded.error().ToString();
  EXPECT_EQ(decoded->spec.rr.mode, record::RrMode::kCrr);
  EXPECT_EQ(decoded->spec.rr.request_bytes, 100u);
  EXPECT_EQ(decoded->spec.rr.response_bytes, 2000u);
  EXPECT_EQ(decoded->spec.rr.burst, 4u);
  EXPECT_EQ(decoded->spec.rr.timeout_ms, 50u);
  EXPECT_EQ(decoded->spec.rr.spin_us, 40u);
}

TEST(ParamsRr, AStockClientNeverSendsItAndABulkTestHasNone) {
  record::TestSpec spec;
  spec.rr.mode = record::RrMode::kRr;
  EXPECT_FALSE(EncodeParams(spec).contains("nicbench"));
  EXPECT_FALSE(EncodeParams(record::TestSpec{}, Extension{})["nicbench"].contains("rr"));
}

TEST(ParamsRr, HostileValuesAreCleanErrors) {
  for (const char* text : {
           R"({"tcp":true,"nicbench":{"version":1,"rr":"yes"}})",
           R"({"tcp":true,"nicbench":{"version":1,"rr":{"mode":"bulk"}}})",
           R"({"tcp":true,"nicbench":{"version":1,"rr":{"mode":"rr","burst":-1}}})",
           R"({"tcp":true,"nicbench":{"version":1,"rr":{"mode":"rr","request_bytes":"1"}}})",
           R"({"tcp":true,"nicbench":{"version":1,"rr":{"mode":7}}})",
           R"({"tcp":true,"nicbench":{"version":1,"rr":{"mode":"rr","spin_us":-1}}})",
           R"({"tcp":true,"nicbench":{"version":1,"rr":{"mode":"rr","spin_us":"50"}}})",
       }) {
    EXPECT_FALSE(DecodeParams(text).has_value()) << text;
  }
}

TEST(ParamsRr, ClockExchangesRideInTheExtension) {
  record::TestSpec spec;
  spec.rr.mode = record::RrMode::kRr;
  Extension ext;
  EXPECT_FALSE(EncodeParams(spec, ext)["nicbench"].contains("clock_exchanges"))
      << "left out when not asked, as an older nicbench sends it";
  ext.clock_exchanges = 16;
  auto decoded = DecodeParams(EncodeParams(spec, ext).dump());
  ASSERT_TRUE(decoded) << decoded.error().ToString();
  EXPECT_EQ(decoded->ext->clock_exchanges, 16u);
  // Absent: none asked for (an older client).
  auto older = DecodeParams(R"({"tcp":true,"nicbench":{"version":1}})");
  ASSERT_TRUE(older);
  EXPECT_EQ(older->ext->clock_exchanges, 0u);
  // More than a server makes, a negative count, a string: each a clean error naming the key.
  for (const char* text : {
           R"({"tcp":true,"nicbench":{"version":1,"clock_exchanges":65}})",
           R"({"tcp":true,"nicbench":{"version":1,"clock_exchanges":-1}})",
           R"({"tcp":true,"nicbench":{"version":1,"clock_exchanges":"16"}})",
       }) {
    auto bad = DecodeParams(text);
    ASSERT_FALSE(bad.has_value()) << text;
    EXPECT_NE(bad.error().message.find("clock_exchanges"), std::string::npos)
        << bad.error().message;
  }
}

}  // namespace
}  // namespace nicbench::protocol
