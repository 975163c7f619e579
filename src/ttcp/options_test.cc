#include "ttcp/options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nicbench::ttcp {
namespace {

// Runs the parser on a copy of the words (getopt may permute argv).
tl::expected<TtcpOptions, ArgError> Parse(std::vector<std::string> words) {
  words.insert(words.begin(), "ttcp");
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  return ParseTtcpArgs(static_cast<int>(words.size()), argv.data());
}

TEST(ParseTtcpArgs, DefaultsAreThoseOfSgi112) {
  auto o = Parse({"-r"});
  ASSERT_TRUE(o.has_value());
  EXPECT_FALSE(o->transmit);
  EXPECT_FALSE(o->udp);
  EXPECT_FALSE(o->sink_mode);
  EXPECT_EQ(o->buflen, 8192);
  EXPECT_EQ(o->nbuf, 2048);
  EXPECT_EQ(o->port, 5001);
  EXPECT_EQ(o->align, 16384);
  EXPECT_EQ(o->offset, 0);
  EXPECT_EQ(o->sockbufsize, 0);
  EXPECT_EQ(o->rate_format, 'K');
  EXPECT_FALSE(o->stats_to_stdout);
  EXPECT_FALSE(o->idle_timeout_seconds.has_value());
  EXPECT_EQ(o->family, Family::kAuto);
}

TEST(ParseTtcpArgs, ValueGluedOrSeparate) {
  auto glued = Parse({"-t", "-l8192", "-n100", "-p5002", "host"});
  auto apart = Parse({"-t", "-l", "8192", "-n", "100", "-p", "5002", "host"});
  ASSERT_TRUE(glued.has_value());
  ASSERT_TRUE(apart.has_value());
  for (const auto& o : {*glued, *apart}) {
    EXPECT_EQ(o.buflen, 8192);
    EXPECT_EQ(o.nbuf, 100);
    EXPECT_EQ(o.port, 5002);
    EXPECT_EQ(o.host, "host");
    EXPECT_TRUE(o.transmit);
  }
}

TEST(ParseTtcpArgs, EveryOption) {
  auto o = Parse({"-tusvdDBT", "-l", "1000", "-A4096", "-O", "8", "-b", "65536", "-f", "m", "-6",
                  "-o", "--idle-timeout", "2.5", "::1"});
  ASSERT_TRUE(o.has_value());
  EXPECT_TRUE(o->transmit && o->udp && o->sink_mode && o->verbose && o->so_debug);
  EXPECT_TRUE(o->nodelay && o->full_blocks && o->touch && o->stats_to_stdout);
  EXPECT_EQ(o->buflen, 1000);
  EXPECT_EQ(o->align, 4096);
  EXPECT_EQ(o->offset, 8);
  EXPECT_EQ(o->sockbufsize, 65536);
  EXPECT_EQ(o->rate_format, 'm');
  EXPECT_EQ(o->family, Family::kInet6);
  EXPECT_DOUBLE_EQ(o->idle_timeout_seconds.value(), 2.5);
  EXPECT_EQ(o->host, "::1");
}

TEST(ParseTtcpArgs, SinkToggles) {
  EXPECT_TRUE(Parse({"-r", "-s"})->sink_mode);
  EXPECT_FALSE(Parse({"-r", "-s", "-s"})->sink_mode);
}

TEST(ParseTtcpArgs, LastOfTAndRWins) {
  EXPECT_FALSE(Parse({"-t", "-r"})->transmit);
  EXPECT_TRUE(Parse({"-r", "-t", "h"})->transmit);
}

TEST(ParseTtcpArgs, LongStatsOption) {
  EXPECT_TRUE(Parse({"-r", "--stats-stdout"})->stats_to_stdout);
}

TEST(ParseTtcpArgs, UdpRaisesShortBuffersToFive) {
  EXPECT_EQ(Parse({"-r", "-u", "-l", "2"})->buflen, 5);
  EXPECT_EQ(Parse({"-r", "-l", "2"})->buflen, 2);
}

TEST(ParseTtcpArgs, UnknownFormatLetterIsKeptAndPrintsAsK) {
  EXPECT_EQ(Parse({"-r", "-fz"})->rate_format, 'z');
}

TEST(ParseTtcpArgs, UsageCases) {
  auto none = Parse({});
  ASSERT_FALSE(none.has_value());
  EXPECT_TRUE(none.error().show_usage);
  EXPECT_EQ(none.error().message, "");

  auto unknown = Parse({"-r", "-x"});
  ASSERT_FALSE(unknown.has_value());
  EXPECT_TRUE(unknown.error().show_usage);
  EXPECT_EQ(unknown.error().message, "ttcp: invalid option -- 'x'");

  auto missing = Parse({"-r", "-l"});
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "ttcp: option requires an argument -- 'l'");

  auto no_host = Parse({"-t", "-s"});
  ASSERT_FALSE(no_host.has_value());
  EXPECT_TRUE(no_host.error().show_usage);

  auto bad_long = Parse({"-r", "--nope"});
  ASSERT_FALSE(bad_long.has_value());
  EXPECT_EQ(bad_long.error().message, "ttcp: unrecognized option '--nope'");
}

TEST(ParseTtcpArgs, ParserStateResetsBetweenCalls) {
  ASSERT_FALSE(Parse({"-r", "-x"}).has_value());
  EXPECT_EQ(Parse({"-r", "-l", "100"})->buflen, 100);
}

struct BadValue {
  std::vector<std::string> words;
  std::string message;
};

TEST(ParseTtcpArgs, BadValuesAreOneClearLine) {
  const BadValue cases[] = {
      {{"-r", "-l", "-5"}, "ttcp: bad value for -l: '-5' (want an integer 1..2147483647)"},
      {{"-r", "-l", "0"}, "ttcp: bad value for -l: '0' (want an integer 1..2147483647)"},
      {{"-r", "-l8k"}, "ttcp: bad value for -l: '8k' (want an integer 1..2147483647)"},
      {{"-r", "-n", "abc"}, "ttcp: bad value for -n: 'abc' (want an integer 0..2147483647)"},
      {{"-r", "-n", "-1"}, "ttcp: bad value for -n: '-1' (want an integer 0..2147483647)"},
      {{"-r", "-p", "0"}, "ttcp: bad value for -p: '0' (want an integer 1..65535)"},
      {{"-r", "-p", "65536"}, "ttcp: bad value for -p: '65536' (want an integer 1..65535)"},
      {{"-r", "-p", ""}, "ttcp: bad value for -p: '' (want an integer 1..65535)"},
      {{"-r", "-b", "-1"}, "ttcp: bad value for -b: '-1' (want an integer 0..2147483647)"},
      {{"-r", "-A", "99999999999"},
       "ttcp: bad value for -A: '99999999999' (want an integer 0..1073741824)"},
      {{"-r", "-O", "x"}, "ttcp: bad value for -O: 'x' (want an integer 0..2147483647)"},
      {{"-r", "--idle-timeout", "0"}, "ttcp: bad value for --idle-timeout: '0' (want seconds > 0)"},
      {{"-r", "--idle-timeout", "-3"},
       "ttcp: bad value for --idle-timeout: '-3' (want seconds > 0)"},
  };
  for (const auto& c : cases) {
    auto o = Parse(c.words);
    ASSERT_FALSE(o.has_value()) << c.message;
    EXPECT_EQ(o.error().message, c.message);
    EXPECT_FALSE(o.error().show_usage) << c.message;
  }
}

TEST(ParseTtcpArgs, PortBounds) {
  EXPECT_EQ(Parse({"-r", "-p", "1"})->port, 1);
  EXPECT_EQ(Parse({"-r", "-p", "65535"})->port, 65535);
}

TEST(UsageText, StartsAsSgiAndListsOurOptions) {
  std::string usage = UsageText();
  EXPECT_EQ(usage.rfind("Usage: ttcp -t [-options] host [ < in ]\n"
                        "       ttcp -r [-options > out]\n"
                        "Common options:\n"
                        "\t-l ##\tlength of bufs read from or written to network (default 8192)\n",
                        0),
            0u);
  EXPECT_NE(usage.find("\t-T\t\"touch\": access each byte as it's read\n"), std::string::npos);
  EXPECT_NE(usage.find("--stats-stdout"), std::string::npos);
  EXPECT_NE(usage.find("--idle-timeout"), std::string::npos);
}

}  // namespace
}  // namespace nicbench::ttcp
