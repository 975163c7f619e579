#include "cli/store_options.h"

#include <gtest/gtest.h>

namespace nicbench::cli {
namespace {

TEST(ParseSince, DatesAreUtc) {
  EXPECT_EQ(ParseSince("2026-11-30", 0).value_or(-1), 1795996800);
  EXPECT_EQ(ParseSince("2026-11-30 09:02", 0).value_or(-1), 1795996800 + 9 * 3600 + 2 * 60);
  EXPECT_EQ(ParseSince("2026-11-30T09:02:48Z", 0).value_or(-1), 1795996800 + 9 * 3600 + 168);
  EXPECT_EQ(ParseSince("2026-11-30T09:02:48", 0).value_or(-1), 1795996800 + 9 * 3600 + 168);
}

TEST(ParseSince, TimesAgo) {
  EXPECT_EQ(ParseSince("30s", 1000000).value_or(-1), 1000000 - 30);
  EXPECT_EQ(ParseSince("90m", 1000000).value_or(-1), 1000000 - 5400);
  EXPECT_EQ(ParseSince("12h", 1000000).value_or(-1), 1000000 - 43200);
  EXPECT_EQ(ParseSince("7d", 1000000).value_or(-1), 1000000 - 7 * 86400);
}

TEST(ParseSince, RefusesWhatIsNotADate) {
  for (const char* bad : {"", "yesterday", "2026-11", "2026-11-30x", "2026-02-30", "2026-13-01",
                          "2026-11-30 25:00", "1969-12-31", "7w", "d", "-3d", "2026-11-30 09"}) {
    EXPECT_FALSE(ParseSince(bad, 1000000).has_value()) << bad;
  }
}

}  // namespace
}  // namespace nicbench::cli
