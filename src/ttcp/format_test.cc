#include "ttcp/format.h"

#include <gtest/gtest.h>

namespace nicbench::ttcp {
namespace {

timeval Tv(long sec, long usec) { return timeval{sec, static_cast<suseconds_t>(usec)}; }

// The receiver line of the FreeBSD msk post (seeds/freebsd-stable-msk-ttcp.txt, line 93):
// "0.0user 0.7sys 0:09real 8% 0i+0d 910maxrss 0+2pf 29195+456csw", 9.00 real seconds.
struct SeedUsage {
  rusage r0{};
  rusage r1{};
  timeval begin = Tv(1000, 250000);
  timeval end = Tv(1009, 250000);
  SeedUsage() {
    r0.ru_utime = Tv(3, 10000);
    r1.ru_utime = Tv(3, 50000);  // +0.04 s user
    r0.ru_stime = Tv(1, 900000);
    r1.ru_stime = Tv(2, 650000);  // +0.75 s system
    r0.ru_maxrss = 1700;
    r1.ru_maxrss = 1820;  // absolute, halved: 910
    r0.ru_minflt = 40;
    r1.ru_minflt = 42;
    r0.ru_nvcsw = 5;
    r1.ru_nvcsw = 29200;
    r0.ru_nivcsw = 4;
    r1.ru_nivcsw = 460;
  }
};

TEST(OutFmt, EveryUnitIs1024Based) {
  double b = 1024.0 * 1024.0 * 1024.0;  // 1 GiB per second
  EXPECT_EQ(OutFmt(b, 'k'), "8388608.00 Kbit");
  EXPECT_EQ(OutFmt(b, 'K'), "1048576.00 KB");
  EXPECT_EQ(OutFmt(b, 'm'), "8192.00 Mbit");
  EXPECT_EQ(OutFmt(b, 'M'), "1024.00 MB");
  EXPECT_EQ(OutFmt(b, 'g'), "8.00 Gbit");
  EXPECT_EQ(OutFmt(b, 'G'), "1.00 GB");
}

TEST(OutFmt, UnknownLetterFallsBackToKilobytes) {
  EXPECT_EQ(OutFmt(2048.0, 'x'), "2.00 KB");
  EXPECT_EQ(OutFmt(2048.0, '\0'), "2.00 KB");
  EXPECT_EQ(OutFmt(2048.0, 'b'), "2.00 KB");
}

TEST(OutFmt, MatchesTheSeedPost) {
  // 104857600 bytes in 8.87 s printed as 11538.31 KB/sec: realt was about 8.874783 s.
  EXPECT_EQ(OutFmt(104857600.0 / 8.874783, 'K'), "11538.31 KB");
}

TEST(Psecs, MinutesAndHours) {
  EXPECT_EQ(Psecs(0), "0:00");
  EXPECT_EQ(Psecs(9), "0:09");
  EXPECT_EQ(Psecs(75), "1:15");
  EXPECT_EQ(Psecs(3599), "59:59");
  EXPECT_EQ(Psecs(3600), "1:00:00");
  EXPECT_EQ(Psecs(3725), "1:02:05");
  EXPECT_EQ(Psecs(36000 + 61), "10:01:01");
}

TEST(Prusage, ReproducesTheSeedLine) {
  SeedUsage u;
  EXPECT_EQ(Prusage(u.r0, u.r1, u.end, u.begin),
            "0.0user 0.7sys 0:09real 8% 0i+0d 910maxrss 0+2pf 29195+456csw");
}

TEST(Prusage, ElapsedTruncatesToWholeSeconds) {
  // The post's transmitter: 8.99 real seconds prints as 0:08real.
  SeedUsage u;
  u.end = Tv(1009, 240000);
  EXPECT_NE(Prusage(u.r0, u.r1, u.end, u.begin).find(" 0:08real "), std::string::npos);
}

TEST(Prusage, PercentIsCpuOverElapsedInHundredths) {
  rusage r0{}, r1{};
  r1.ru_utime = Tv(1, 0);
  r1.ru_stime = Tv(9, 700000);  // 10.7 s of CPU in 13.63 s: 78%
  std::string line = Prusage(r0, r1, Tv(13, 630000), Tv(0, 0));
  EXPECT_EQ(line.substr(0, line.find(" 0i")), "1.0user 9.7sys 0:13real 78%");
}

TEST(Prusage, RssIntegralsDividedByCpuHundredths) {
  rusage r0{}, r1{};
  r1.ru_stime = Tv(0, 500000);  // t = 50 hundredths
  r1.ru_ixrss = 250;            // 250 / 50 = 5
  r1.ru_idrss = 400;
  r1.ru_isrss = 100;  // 500 / 50 = 10
  std::string line = Prusage(r0, r1, Tv(1, 0), Tv(0, 0));
  EXPECT_NE(line.find(" 5i+10d "), std::string::npos) << line;
}

TEST(Prusage, ZeroCpuAndZeroElapsedDoNotDivideByZero) {
  rusage r0{}, r1{};
  r1.ru_ixrss = 99;
  EXPECT_EQ(Prusage(r0, r1, Tv(5, 0), Tv(5, 0)),
            "0.0user 0.0sys 0:00real 0% 0i+0d 0maxrss 0+0pf 0+0csw");
}

TEST(Prusage, UserTimeBorrowsMicroseconds) {
  rusage r0{}, r1{};
  r0.ru_utime = Tv(1, 900000);
  r1.ru_utime = Tv(3, 100000);  // 1.2 s
  EXPECT_EQ(Prusage(r0, r1, Tv(2, 0), Tv(0, 0)).substr(0, 8), "1.2user ");
}

TEST(RealSeconds, BorrowsMicroseconds) {
  EXPECT_DOUBLE_EQ(RealSeconds(Tv(10, 100000), Tv(8, 600000)), 1.5);
}

TEST(CpuSeconds, UserPlusSystemWithFloor) {
  rusage r0{}, r1{};
  r1.ru_utime = Tv(0, 250000);
  r1.ru_stime = Tv(1, 500000);
  EXPECT_DOUBLE_EQ(CpuSeconds(r0, r1), 1.75);
  EXPECT_DOUBLE_EQ(CpuSeconds(r0, r0), 0.00001);
}

TEST(MsecPerCall, KeepsTheHistoricalFactor1024) {
  // The seed: 12800 calls in 8.8747 s print as msec/call = 0.71 (1000 would give 0.69).
  EXPECT_NEAR(MsecPerCall(8.8747, 12800), 0.71, 0.005);
  EXPECT_DOUBLE_EQ(MsecPerCall(1.0, 1024), 1.0);
}

TEST(HeaderLine, TransmitterAndReceiver) {
  TtcpOptions o;
  o.transmit = true;
  o.host = "atlantis";
  o.nbuf = 12800;
  EXPECT_EQ(HeaderLine(o),
            "ttcp-t: buflen=8192, nbuf=12800, align=16384/0, port=5001  tcp  -> atlantis\n");
  o.transmit = false;
  o.udp = true;
  o.sockbufsize = 65536;
  o.offset = 8;
  EXPECT_EQ(HeaderLine(o),
            "ttcp-r: buflen=8192, nbuf=12800, align=16384/8, port=5001, sockbufsize=65536  udp\n");
}

StatsInput SeedStats() {
  StatsInput in;
  in.transmit = true;
  in.nbytes = 104857600;
  in.real_seconds = 8.874783;
  in.cpu_seconds = 0.72;
  in.num_calls = 12800;
  in.rusage_text = "0.0user 0.7sys 0:08real 8% 0i+0d 910maxrss 0+2pf 29195+456csw";
  return in;
}

// The transmitter lines of seeds/freebsd-stable-msk-ttcp.txt (lines 75-77), digit for digit.
TEST(StatsLines, MatchTheSeedPost) {
  EXPECT_EQ(StatsLines(SeedStats()),
            "ttcp-t: 104857600 bytes in 8.87 real seconds = 11538.31 KB/sec +++\n"
            "ttcp-t: 12800 I/O calls, msec/call = 0.71, calls/sec = 1442.29\n"
            "ttcp-t: 0.0user 0.7sys 0:08real 8% 0i+0d 910maxrss 0+2pf 29195+456csw\n");
}

TEST(StatsLines, VerboseAddsCpuAndBufferLines) {
  StatsInput in = SeedStats();
  in.transmit = false;
  in.verbose = true;
  in.rate_format = 'm';
  in.buffer_address = 0x7f00c000;
  std::string text = StatsLines(in);
  EXPECT_NE(text.find("ttcp-r: 104857600 bytes in 8.87 real seconds = 90.14 Mbit/sec +++\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ttcp-r: 104857600 bytes in 0.72 CPU seconds = 1111.11 Mbit/cpu sec\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ttcp-r: buffer address 0x7f00c000\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("ttcp-t"), std::string::npos);
}

TEST(StatsLines, ClampsZeroTimes) {
  StatsInput in;
  in.nbytes = 1024;
  in.num_calls = 1;
  EXPECT_EQ(StatsLines(in).substr(0, StatsLines(in).find('\n')),
            "ttcp-r: 1024 bytes in 0.00 real seconds = 1000.00 KB/sec +++");
  EXPECT_NE(StatsLines(in).find("msec/call = 1.02, calls/sec = 1000.00"), std::string::npos);
}

}  // namespace
}  // namespace nicbench::ttcp
