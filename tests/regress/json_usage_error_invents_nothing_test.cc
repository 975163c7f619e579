// Bug: a usage error in -J mode wrote a whole run document of invented values: a 1970
// timestamp, `"duration": 10` when the user had asked for `-t -5`, an empty version. It is now
// an error document: iperf3's empty start/intervals/end, the error, and this binary's version.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

void ExpectErrorDocument(const std::vector<std::string>& args) {
  testing::ProcessResult r = testing::RunNicbench(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  ASSERT_TRUE(doc.contains("error")) << r.out;
  EXPECT_FALSE(doc["error"].get<std::string>().empty());
  EXPECT_EQ(doc["start"], nlohmann::json::object()) << "nothing was started: " << r.out;
  EXPECT_EQ(doc["intervals"], nlohmann::json::array());
  EXPECT_EQ(doc["end"], nlohmann::json::object());
  EXPECT_FALSE(doc["nicbench"]["version"].get<std::string>().empty());
  for (const char* invented : {"local", "remote", "findings", "timestamp"}) {
    EXPECT_FALSE(doc.contains(invented)) << invented << " in " << r.out;
  }
  EXPECT_FALSE(doc["nicbench"].contains("spec")) << r.out;
}

TEST(JsonUsageError, NegativeDurationGivesAnErrorDocumentWithNothingInvented) {
  ExpectErrorDocument({"run", "127.0.0.1", "-t", "-5", "-J"});
}

TEST(JsonUsageError, UnknownOptionGivesAnErrorDocumentWithNothingInvented) {
  ExpectErrorDocument({"run", "127.0.0.1", "--no-such-option", "-J"});
}

TEST(JsonUsageError, BadRangeGivesAnErrorDocumentWithNothingInvented) {
  ExpectErrorDocument({"run", "127.0.0.1", "-P", "5000", "-J"});
}

}  // namespace
}  // namespace nicbench::regress
