// Found by fuzzing (tests/fuzz/matrix_plan, crash inputs under tests/fuzz/crashes/matrix_plan/):
// `nicbench matrix --resume ID` took the experiment's stored definition as it read, so a schedule
// naming a variant past the cross product made the runner index past its variants (a read out of
// bounds), and --vary lists whose product is huge built every variant in memory.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/matrix_plan.h"

namespace nicbench::cli {
namespace {

nlohmann::json Definition(nlohmann::json schedule) {
  return {{"host", "198.18.0.2"},
          {"vary", {{{"name", "tso"}, {"values", {"on", "off"}}}}},
          {"repeat", 1},
          {"seed", 7},
          {"setup", "echo {tso}"},
          {"teardown", ""},
          {"run_options", nlohmann::json::array()},
          {"schedule", std::move(schedule)}};
}

TEST(MatrixDefinitionOutOfRange, AScheduleNamingAMissingVariantDoesNotRead) {
  EXPECT_TRUE(DefinitionFromJson(Definition({{1, 0}})));
  auto past = DefinitionFromJson(Definition({{0, 2}}));
  ASSERT_FALSE(past);
  EXPECT_NE(past.error().message.find("variant 2 of 2"), std::string::npos) << past.error().message;
  EXPECT_FALSE(DefinitionFromJson(Definition({{-1}})));
}

TEST(MatrixDefinitionOutOfRange, WhatTheCommandRefusesDoesNotReadEither) {
  nlohmann::json d = Definition({{0, 1}});
  d["repeat"] = 0;
  EXPECT_FALSE(DefinitionFromJson(d));
  d = Definition({{0, 1}});
  d["vary"][0]["values"] = nlohmann::json::array();
  EXPECT_FALSE(DefinitionFromJson(d));
  d = Definition({{0, 1}});
  d["vary"][0]["values"] = {"on,off"};
  EXPECT_FALSE(DefinitionFromJson(d));
  d = Definition({{0, 1}});
  d["vary"] = nlohmann::json::array();
  EXPECT_FALSE(DefinitionFromJson(d));
}

TEST(MatrixDefinitionOutOfRange, TooManyVariantsAreRefusedBeforeTheyAreBuilt) {
  std::vector<Vary> varies;
  for (int i = 0; i < 12; ++i) {
    varies.push_back(*ParseVary("v" + std::to_string(i) + "=a,b,c,d,e,f,g,h,i,j"));
  }
  EXPECT_EQ(VariantCount(varies), kMaxVariants + 1);
  auto roles =
      Classify(varies, false, "echo {v0}{v1}{v2}{v3}{v4}{v5}{v6}{v7}{v8}{v9}{v10}{v11}", "");
  ASSERT_FALSE(roles);
  EXPECT_NE(roles.error().message.find("variants"), std::string::npos);
  varies.resize(4);
  EXPECT_EQ(VariantCount(varies), kMaxVariants);
}

}  // namespace
}  // namespace nicbench::cli
