#include "report/wrap.h"

#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace nicbench::report {
namespace {

size_t Widest(const std::string& text) {
  std::istringstream in(text);
  size_t widest = 0;
  for (std::string line; std::getline(in, line);) widest = std::max(widest, line.size());
  return widest;
}

TEST(WrapToWidth, ShortLinesAndWidthZeroAreLeftAlone) {
  const std::string text = "  Goodput  1.00 Gbits/sec\nsecond line\n";
  EXPECT_EQ(WrapToWidth(text, 80), text);
  const std::string long_line(300, 'x');
  EXPECT_EQ(WrapToWidth(long_line + " " + long_line, 0), long_line + " " + long_line);
}

TEST(WrapToWidth, EvidenceFoldsUnderTheTextAfterItsLabel) {
  const std::string line =
      "      evidence: both ends run on one host: these are the same cores for both, so what "
      "one end spends the other cannot";
  const std::string wrapped = WrapToWidth(line + "\n", 60);
  EXPECT_EQ(wrapped,
            "      evidence: both ends run on one host: these are the\n"
            "                same cores for both, so what one end spends\n"
            "                the other cannot\n");
}

TEST(WrapToWidth, ALabelSetOffBySpacesHangsItsValue) {
  const std::string line =
      "  Host busy    1.16 CPU-s/GB (sy 0.43, us 0.379, ni 0.275, si 0.0746) over 2 CPUs, "
      "1.00 s; all processes, not only this transfer";
  const std::string wrapped = WrapToWidth(line, 70);
  EXPECT_LE(Widest(wrapped), 70u) << wrapped;
  EXPECT_EQ(wrapped.substr(0, 17), "  Host busy    1.");
  // Continuation lines start under "1.16".
  EXPECT_NE(wrapped.find("\n               "), std::string::npos) << wrapped;
  EXPECT_EQ(wrapped.find("\n                "), std::string::npos) << wrapped;
  // Nothing is lost or reordered: the words are the same.
  std::istringstream a(line), b(wrapped);
  std::string wa, wb;
  while (a >> wa) {
    ASSERT_TRUE(b >> wb);
    EXPECT_EQ(wa, wb);
  }
  EXPECT_FALSE(b >> wb);
}

TEST(WrapToWidth, TableRowsStayWhole) {
  const std::string row =
      "  NIC              unknown (loopback: no NIC on the path)                            "
      "unknown (loopback: no NIC on the path)";
  EXPECT_EQ(WrapToWidth(row, 80), row);
}

TEST(WrapToWidth, AWordWiderThanTheRoomStandsAlone) {
  const std::string path = "/" + std::string(90, 'p');
  const std::string wrapped = WrapToWidth("  see " + path + " for more", 40);
  EXPECT_EQ(wrapped, "  see\n    " + path + "\n    for more");
}

TEST(WrapToWidth, CountsCharactersNotBytes) {
  // "→" is three bytes and one column.
  const std::string line = "  client → server " + std::string(20, 'a');
  EXPECT_EQ(WrapToWidth(line, static_cast<size_t>(2 + 6 + 1 + 1 + 1 + 6 + 1 + 20)), line);
}

}  // namespace
}  // namespace nicbench::report
