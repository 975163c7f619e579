#include "report/terminal_text.h"

#include <gtest/gtest.h>

namespace nicbench::report {
namespace {

TEST(TerminalSafe, EscapesEveryControlAndKeepsPrintableUtf8) {
  EXPECT_EQ(TerminalSafe("\x1b]0;pwned\x07host"), "\\x1b]0;pwned\\x07host");
  EXPECT_EQ(TerminalSafe("a\nb\tc\x7f"), "a\\x0ab\\x09c\\x7f");
  EXPECT_EQ(TerminalSafe("h\xc2\x9b"
                         "2J"),
            "h\\u009b2J");  // C1 CSI
  EXPECT_EQ(TerminalSafe("caf\xc3\xa9 \xc2\xb5s"), "caf\xc3\xa9 \xc2\xb5s");
  EXPECT_EQ(TerminalSafe("\x9b"
                         "2J"),
            "\\x9b2J");                               // a lone C1 byte, not UTF-8
  EXPECT_EQ(TerminalSafe("\xc0\xaf"), "\\xc0\\xaf");  // overlong
  EXPECT_EQ(TerminalSafe("\xe2\x82"), "\\xe2\\x82");  // cut short
  EXPECT_EQ(TerminalSafe("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
}

TEST(TerminalSafe, LinesKeepNewlinesAndTabsOnly) {
  EXPECT_EQ(TerminalSafeLines("a\nb\tc\r\x1b[2J"), "a\nb\tc\\x0d\\x1b[2J");
}

}  // namespace
}  // namespace nicbench::report
