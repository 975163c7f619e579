// Bug: `run --help` and the README said the main job and `run HOST --both-directions` compare the
// two directions, but they printed two reports and nothing after them: seed 1's question (which
// direction is slow, and which end's CPU, retransmits or drops differ) was left to the reader.
// The two directions are now one table after the two summaries, the pair's findings under it,
// and -J's second document carries the rows as "directions".
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/json_lines.h"
#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

TEST(DirectionsNeverCompared, LoopbackTextEndsWithTheDirectionsSideBySide) {
  auto r = testing::RunNicbench({"run", "-t", "0.5", "-i", "0", "--no-store"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t reverse = r.out.find("reverse: server sends");
  ASSERT_NE(reverse, std::string::npos) << r.out;
  const size_t table = r.out.find("Both directions side by side", reverse);
  ASSERT_NE(table, std::string::npos) << "no comparison after the two reports:\n" << r.out;
  EXPECT_NE(r.out.find("goodput (receiver's count)", table), std::string::npos);
  EXPECT_NE(r.out.find("The two directions compared:", table), std::string::npos);
}

TEST(DirectionsNeverCompared, JsonCarriesTheComparison) {
  auto r = testing::RunNicbench({"run", "-t", "0.5", "-i", "0", "-J", "--no-store"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json runs = testing::ParseJsonLines(r.out)["runs"];
  ASSERT_EQ(runs.size(), 2u);
  ASSERT_TRUE(runs[1].contains("directions")) << "no comparison in -J";
  EXPECT_EQ(runs[1]["directions"]["rows"][0]["id"], "goodput");
  EXPECT_TRUE(runs[1]["directions"]["rows"][0]["forward"].is_number());
}

}  // namespace
}  // namespace nicbench::regress
