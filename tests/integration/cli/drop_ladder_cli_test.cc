// The text summary of `nicbench run` prints the drop ladder (one row per layer, both ends) and
// what limited each TCP stream; the HTML summary carries the same ladder.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace nicbench {
namespace {

TEST(DropLadderCli, TheSummaryPrintsTheLadderAndTheStreamLimits) {
  const testing::ProcessResult r = testing::RunNicbench({"run", "-t", "1", "--no-store"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& out = r.out;
  const size_t table = out.find(
      "Drop ladder, bottom up (packets dropped during the test):\n"
      "  layer            local client");
  ASSERT_NE(table, std::string::npos) << out;
  size_t at = table;
  for (const char* row :
       {"\n  NIC              unknown (loopback: no NIC on the path)", "\n  softnet backlog  ",
        "\n  qdisc            0",  // lo: noqueue, nothing to drop
        "\n  socket           ", "\n  retransmissions  "}) {
    const size_t next = out.find(row, at);
    ASSERT_NE(next, std::string::npos) << "no row '" << row << "' in order in:\n" << out;
    at = next;
  }
  EXPECT_NE(out.find("remote server", table), std::string::npos) << out;
  EXPECT_NE(out.find("What limited each TCP stream"), std::string::npos) << out;
  EXPECT_NE(out.find("] local sends: "), std::string::npos) << out;
}

TEST(DropLadderCli, TheHtmlSummaryHasTheLadder) {
  const std::filesystem::path page = std::filesystem::temp_directory_path() /
                                     ("nicbench-ladder-" + std::to_string(getpid()) + ".html");
  const testing::ProcessResult r =
      testing::RunNicbench({"run", "-t", "1", "--no-store", "-J", "--html", page.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ostringstream text;
  text << std::ifstream(page).rdbuf();
  std::filesystem::remove(page);
  const std::string html = text.str();
  // Two runs (forward and reverse) on one page: each section's id has its run's prefix.
  EXPECT_NE(html.find("drop-ladder-h\">Drop ladder</h2>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>softnet backlog</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>retransmissions</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>unknown (loopback: no NIC on the path)</td>"), std::string::npos);
  EXPECT_NE(html.find("What limited each TCP stream</h2>"), std::string::npos);
}

}  // namespace
}  // namespace nicbench
