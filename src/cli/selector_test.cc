#include "cli/selector.h"

#include <gtest/gtest.h>

namespace nicbench::cli {
namespace {

TEST(Selector, EveryForm) {
  auto id = ParseSelector("42");
  ASSERT_TRUE(id);
  EXPECT_TRUE(id->single);
  EXPECT_EQ(*id->query.min_id, 42);
  EXPECT_EQ(*id->query.max_id, 42);
  auto label = ParseSelector("label:tso=on,direction=forward");
  ASSERT_TRUE(label);
  EXPECT_EQ(label->query.labels.at("tso"), "on");
  EXPECT_EQ(label->query.labels.at("direction"), "forward");
  EXPECT_EQ(ParseSelector("last:5")->query.limit, 5u);
  auto range = ParseSelector("id:12..20");
  EXPECT_EQ(*range->query.min_id, 12);
  EXPECT_EQ(*range->query.max_id, 20);
  EXPECT_EQ(*ParseSelector("experiment:3")->query.experiment, 3);
}

TEST(Selector, BadSyntaxSaysWhat) {
  for (const char* bad : {"", "0", "-1", "abc", "label:", "label:tso", "label:=on", "last:0",
                          "last:x", "id:5", "id:9..3", "id:a..b", "when:today", "experiment:"}) {
    auto s = ParseSelector(bad);
    EXPECT_FALSE(s) << bad;
    if (!s) {
      EXPECT_NE(s.error().message.find("selector '"), std::string::npos) << bad;
    }
  }
  EXPECT_NE(ParseSelector("when:today").error().message.find("unknown kind 'when'"),
            std::string::npos);
  EXPECT_NE(ParseSelector("label:tso").error().message.find("tso"), std::string::npos);
}

}  // namespace
}  // namespace nicbench::cli
