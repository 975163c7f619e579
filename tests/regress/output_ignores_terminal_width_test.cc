// Bug: the run's text ignored the terminal's width: 38 of 135 lines of the demo were over 100
// columns (findings' evidence up to 337), so on an 80-column terminal every finding wrapped
// mid-word. On a terminal the findings now fold at spaces under their label; piped, every line
// stays whole for scripts. (Table rows, such as the drop ladder's, are kept whole either way.)
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

// The lines of the "Findings" sections, without the terminal's carriage returns.
std::vector<std::string> FindingLines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("Findings", 0) == 0) {
      inside = true;
    } else if (line.empty()) {
      inside = false;
    } else if (inside) {
      lines.push_back(line);
    }
  }
  return lines;
}

size_t Widest(const std::vector<std::string>& lines) {
  size_t widest = 0;
  for (const std::string& line : lines) widest = std::max(widest, line.size());
  return widest;
}

TEST(OutputIgnoresTerminalWidth, FindingsFoldOnATerminalAndStayWholeWhenPiped) {
  if (!testing::HaveProgram("script")) GTEST_SKIP() << "script (bsdutils) is not installed";
  const std::string run = testing::NicbenchPath() + " run -t 1 --no-store";
  testing::ProcessResult piped = testing::RunProcess({"sh", "-c", run + " 2>/dev/null"});
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  const std::vector<std::string> whole = FindingLines(piped.out);
  ASSERT_FALSE(whole.empty()) << piped.out;
  EXPECT_GT(Widest(whole), 80u) << "piped, the evidence lines are whole";

  // script(1) gives the run a terminal; its window has no size, so $COLUMNS says it.
  testing::ProcessResult tty = testing::RunProcess(
      {"env", "COLUMNS=80", "script", "-qec", run + " 2>/dev/null", "/dev/null"});
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  const std::vector<std::string> folded = FindingLines(tty.out);
  ASSERT_FALSE(folded.empty()) << tty.out;
  EXPECT_LE(Widest(folded), 80u) << tty.out;
  EXPECT_GT(folded.size(), whole.size()) << "folding adds lines";
}

}  // namespace
}  // namespace nicbench::regress
