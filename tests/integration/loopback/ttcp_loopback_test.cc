// Classic ttcp over loopback: our transmitter to our receiver, both run as real processes of the
// built binary, in the four modes (TCP and UDP, each as source/sink and as normal stdin/stdout
// mode), plus IPv6, -v and the stats channel. Every printed line is checked against the
// formats of SGI ttcp 1.12 (docs/ttcp.md), and byte counts against what was sent.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/run_binary.h"
#include "support/text.h"
#include "support/wait.h"

namespace nicbench::testing {
namespace {

using std::chrono::seconds;

// The `ttcp` symlink beside the nicbench binary: these tests run ttcp under its own name.
std::string TtcpPath() {
  std::string nicbench = NicbenchPath();
  return nicbench.substr(0, nicbench.rfind('/') + 1) + "ttcp";
}

std::vector<std::string> Ttcp(std::vector<std::string> args) {
  args.insert(args.begin(), TtcpPath());
  return args;
}

// Waits until the receiver has bound `port` (a TCP listener, or any UDP socket). The receiver
// prints "socket" before bind/listen, so its output cannot tell us this.
void WaitBound(int port, bool udp) {
  ASSERT_TRUE(WaitListening(port, udp)) << "receiver never bound port " << port;
}

// Waits for a receiver that should end on its own: Stop(0) sends no signal and reaps the
// process once it exits (it is killed only if it is still running after the helper's grace).
ProcessResult WaitExit(BackgroundProcess& receiver) { return receiver.Stop(0); }

using testing::Lines;

// Each line format of ttcp 1.12, by name.
struct LineFormat {
  const char* name;
  std::regex pattern;
};

const std::vector<LineFormat>& Formats() {
  static const std::vector<LineFormat> formats = {
      {"header-t",
       std::regex(
           R"(^ttcp-t: buflen=\d+, nbuf=\d+, align=\d+/\d+, port=\d+(, sockbufsize=\d+)?  (tcp|udp)  -> \S+$)")},
      {"header-r",
       std::regex(
           R"(^ttcp-r: buflen=\d+, nbuf=\d+, align=\d+/\d+, port=\d+(, sockbufsize=\d+)?  (tcp|udp)$)")},
      {"mes", std::regex(R"(^ttcp-[tr]: (socket|connect|sndbuf|rcvbuf|nodelay)$)")},
      {"accept", std::regex(R"(^ttcp-r: accept from [0-9a-f.:]+$)")},
      {"result",
       std::regex(
           R"(^ttcp-[tr]: \d+ bytes in \d+\.\d\d real seconds = \d+\.\d\d (KB|MB|GB|Kbit|Mbit|Gbit)/sec \+\+\+$)")},
      {"cpu",
       std::regex(
           R"(^ttcp-[tr]: \d+ bytes in \d+\.\d\d CPU seconds = \d+\.\d\d (KB|MB|GB|Kbit|Mbit|Gbit)/cpu sec$)")},
      {"calls",
       std::regex(R"(^ttcp-[tr]: \d+ I/O calls, msec/call = \d+\.\d\d, calls/sec = \d+\.\d\d$)")},
      {"rusage",
       std::regex(
           R"(^ttcp-[tr]: \d+\.\duser \d+\.\dsys (\d+:)?\d+:\d\dreal \d+% \d+i\+\d+d \d+maxrss \d+\+\d+pf \d+\+\d+csw$)")},
      {"buffer", std::regex(R"(^ttcp-[tr]: buffer address 0x[0-9a-f]+$)")},
      {"idle",
       std::regex(
           R"(^ttcp-r: idle timeout: no datagram for [0-9.]+ s, ending without the end sentinel$)")},
  };
  return formats;
}

// The format names of the lines, in order; "?" for a line that matches none.
std::vector<std::string> Classify(const std::string& text) {
  std::vector<std::string> names;
  for (const auto& line : Lines(text)) {
    std::string name = "?";
    for (const auto& f : Formats()) {
      if (std::regex_match(line, f.pattern)) {
        name = f.name;
        break;
      }
    }
    EXPECT_NE(name, "?") << "unexpected line: " << line;
    names.push_back(name);
  }
  return names;
}

// Numbers from the result and calls lines ($2 of "+++" line; first number of the calls line).
struct Figures {
  long long bytes = -1;
  long long calls = -1;
};

Figures Extract(const std::string& text) {
  Figures f;
  std::smatch m;
  static const std::regex result(R"(^ttcp-[tr]: (\d+) bytes in .* \+\+\+$)");
  static const std::regex calls(R"(^ttcp-[tr]: (\d+) I/O calls,.*$)");
  for (const auto& line : Lines(text)) {
    if (std::regex_match(line, m, result)) f.bytes = std::stoll(m[1]);
    if (std::regex_match(line, m, calls)) f.calls = std::stoll(m[1]);
  }
  return f;
}

using Names = std::vector<std::string>;

// A few hundred KB that is not the ttcp pattern and has every byte value.
std::string TestData(size_t size) {
  std::string data(size, '\0');
  uint32_t x = 2463534242u;
  for (auto& c : data) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x & 0xff);
  }
  return data;
}

TEST(TtcpLoopback, TcpSourceToSink) {
  int port = FreeTcpPort();
  std::string p = std::to_string(port);
  BackgroundProcess receiver(Ttcp({"-r", "-s", "-p", p}));
  WaitBound(port, false);
  ProcessResult t = RunProcess(Ttcp({"-t", "-s", "-n100", "-l", "8192", "-p" + p, "127.0.0.1"}));
  ProcessResult r = WaitExit(receiver);

  ASSERT_EQ(t.exit_code, 0) << t.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(t.out, "");  // statistics go to stderr by default
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Classify(t.err), (Names{"header-t", "mes", "mes", "result", "calls", "rusage"}));
  EXPECT_EQ(Classify(r.err), (Names{"header-r", "mes", "accept", "result", "calls", "rusage"}));
  EXPECT_EQ(Lines(t.err)[0],
            "ttcp-t: buflen=8192, nbuf=100, align=16384/0, port=" + p + "  tcp  -> 127.0.0.1");
  EXPECT_EQ(Lines(t.err)[1], "ttcp-t: socket");
  EXPECT_EQ(Lines(t.err)[2], "ttcp-t: connect");
  EXPECT_EQ(Lines(r.err)[0], "ttcp-r: buflen=8192, nbuf=2048, align=16384/0, port=" + p + "  tcp");
  EXPECT_EQ(Lines(r.err)[2], "ttcp-r: accept from 127.0.0.1");

  Figures tf = Extract(t.err), rf = Extract(r.err);
  EXPECT_EQ(tf.bytes, 100 * 8192);
  EXPECT_EQ(rf.bytes, 100 * 8192);
  EXPECT_EQ(tf.calls, 100);
  // Every read, including the final one that returns 0 (EOF), is an I/O call.
  EXPECT_GE(rf.calls, 101);
}

TEST(TtcpLoopback, TcpFullBlocksTouchNodelayAndVerbose) {
  int port = FreeTcpPort();
  std::string p = std::to_string(port);
  BackgroundProcess receiver(Ttcp({"-r", "-s", "-B", "-T", "-v", "-fm", "-l1000", "-p", p}));
  WaitBound(port, false);
  ProcessResult t = RunProcess(
      Ttcp({"-t", "-s", "-D", "-v", "-fG", "-n", "500", "-l1000", "-p", p, "localhost"}));
  ProcessResult r = WaitExit(receiver);

  ASSERT_EQ(t.exit_code, 0) << t.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Classify(t.err),
            (Names{"header-t", "mes", "mes", "mes", "result", "cpu", "calls", "rusage", "buffer"}));
  EXPECT_EQ(Lines(t.err)[2], "ttcp-t: nodelay");
  EXPECT_NE(t.err.find(" GB/sec +++\n"), std::string::npos);
  EXPECT_NE(r.err.find(" Mbit/sec +++\n"), std::string::npos);
  EXPECT_EQ(Classify(r.err),
            (Names{"header-r", "mes", "accept", "result", "cpu", "calls", "rusage", "buffer"}));
  EXPECT_EQ(Extract(t.err).bytes, 500000);
  EXPECT_EQ(Extract(r.err).bytes, 500000);
  // -B fills every 1000-byte block, so there are at least 500 reads plus the one that sees EOF.
  EXPECT_GE(Extract(r.err).calls, 501);
}

TEST(TtcpLoopback, UdpSourceToSink) {
  int port = FreeTcpPort();
  std::string p = std::to_string(port);
  // A 4 MB receive buffer keeps 64 small datagrams from being dropped on loopback.
  BackgroundProcess receiver(Ttcp({"-r", "-s", "-u", "-b", "4194304", "-p", p}));
  WaitBound(port, true);
  ProcessResult t = RunProcess(Ttcp({"-t", "-s", "-u", "-l1024", "-n64", "-p", p, "127.0.0.1"}));
  ProcessResult r = WaitExit(receiver);

  ASSERT_EQ(t.exit_code, 0) << t.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Classify(t.err), (Names{"header-t", "mes", "result", "calls", "rusage"}));
  EXPECT_EQ(Classify(r.err), (Names{"header-r", "mes", "mes", "result", "calls", "rusage"}));
  EXPECT_EQ(Lines(r.err)[0], "ttcp-r: buflen=8192, nbuf=2048, align=16384/0, port=" + p +
                                 ", sockbufsize=4194304  udp");
  EXPECT_EQ(Lines(r.err)[2], "ttcp-r: rcvbuf");

  Figures tf = Extract(t.err), rf = Extract(r.err);
  EXPECT_EQ(tf.bytes, 64 * 1024);
  // 1 start + 64 data + 1 end sentinel, then 4 trailing sentinels after the timer stopped.
  EXPECT_EQ(tf.calls, 64 + 6);
  // Loopback UDP can still drop; then the receiver saw fewer whole datagrams, never more.
  EXPECT_LE(rf.bytes, tf.bytes);
  EXPECT_EQ(rf.bytes % 1024, 0);
  EXPECT_EQ(rf.calls, rf.bytes / 1024 + 2);  // its datagrams plus two sentinels
  if (rf.bytes != tf.bytes) {
    std::printf("note: %lld of %lld bytes arrived (UDP loss on loopback)\n", rf.bytes, tf.bytes);
  }
}

TEST(TtcpLoopback, TcpNormalModeCopiesStdinToStdout) {
  int port = FreeTcpPort();
  std::string p = std::to_string(port);
  std::string data = TestData(300 * 1024 + 123);
  BackgroundProcess receiver(Ttcp({"-r", "-p", p}));
  WaitBound(port, false);
  ProcessResult t = RunProcess(Ttcp({"-t", "-p", p, "127.0.0.1"}), data);
  ProcessResult r = WaitExit(receiver);

  ASSERT_EQ(t.exit_code, 0) << t.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out == data) << "received " << r.out.size() << " of " << data.size() << " bytes";
  EXPECT_EQ(Extract(t.err).bytes, static_cast<long long>(data.size()));
  EXPECT_EQ(Extract(r.err).bytes, static_cast<long long>(data.size()));
  EXPECT_EQ(Classify(t.err), (Names{"header-t", "mes", "mes", "result", "calls", "rusage"}));
  EXPECT_EQ(Classify(r.err), (Names{"header-r", "mes", "accept", "result", "calls", "rusage"}));
}

TEST(TtcpLoopback, UdpNormalModeEndsByIdleTimeout) {
  int port = FreeTcpPort();
  std::string p = std::to_string(port);
  std::string data = TestData(40 * 1000);
  // Normal-mode UDP has no end sentinel (as in the original), so only the idle timeout ends it.
  BackgroundProcess receiver(Ttcp({"-r", "-u", "-b", "4194304", "--idle-timeout", "1", "-p", p}));
  WaitBound(port, true);
  ProcessResult t = RunProcess(Ttcp({"-t", "-u", "-l", "1000", "-p", p, "127.0.0.1"}), data);
  ProcessResult r = WaitExit(receiver);

  ASSERT_EQ(t.exit_code, 0) << t.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Figures tf = Extract(t.err), rf = Extract(r.err);
  EXPECT_EQ(tf.bytes, 40000);
  EXPECT_EQ(tf.calls, 40 + 4);  // 40 datagrams from stdin and the 4 trailing sentinels
  EXPECT_EQ(Classify(r.err),
            (Names{"header-r", "mes", "mes", "idle", "result", "calls", "rusage"}));
  // The four trailing sentinels are data to a normal-mode receiver: it writes them out too.
  // Each carries the first 4 bytes of the last buffer read from stdin.
  std::string sentinel = data.substr(39000, 4);
  std::string expected = data + sentinel + sentinel + sentinel + sentinel;
  EXPECT_LE(rf.bytes, static_cast<long long>(expected.size()));
  if (rf.bytes == static_cast<long long>(expected.size())) {
    EXPECT_TRUE(r.out == expected);
  } else {
    EXPECT_EQ(static_cast<long long>(r.out.size()), rf.bytes);
  }
}

TEST(TtcpLoopback, Ipv6AcceptLineShowsNumericAddress) {
  std::ifstream if_inet6("/proc/net/if_inet6");
  std::string table((std::istreambuf_iterator<char>(if_inet6)), std::istreambuf_iterator<char>());
  if (table.find("00000000000000000000000000000001") == std::string::npos) {
    GTEST_SKIP() << "no ::1 on this host (IPv6 disabled)";
  }
  int port = FreeTcpPort();
  std::string p = std::to_string(port);
  BackgroundProcess receiver(Ttcp({"-r", "-s", "-6", "-p", p}));
  WaitBound(port, false);
  ProcessResult t = RunProcess(Ttcp({"-t", "-s", "-6", "-n", "10", "-p", p, "::1"}));
  ProcessResult r = WaitExit(receiver);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(t.err)[0],
            "ttcp-t: buflen=8192, nbuf=10, align=16384/0, port=" + p + "  tcp  -> ::1");
  EXPECT_EQ(Lines(r.err)[2], "ttcp-r: accept from ::1");
  EXPECT_EQ(Extract(r.err).bytes, 81920);
}

TEST(TtcpLoopback, StatsStdoutPutsStatisticsOnStdout) {
  int port = FreeTcpPort();
  std::string p = std::to_string(port);
  BackgroundProcess receiver(Ttcp({"-r", "-s", "--stats-stdout", "-p", p}));
  WaitBound(port, false);
  // Also through `nicbench ttcp`, the subcommand form.
  ProcessResult t = RunNicbench({"ttcp", "-t", "-s", "-o", "-n", "20", "-p", p, "127.0.0.1"});
  ProcessResult r = WaitExit(receiver);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Classify(t.out), (Names{"header-t", "result", "calls", "rusage"}));
  EXPECT_EQ(Classify(t.err), (Names{"mes", "mes"}));
  EXPECT_EQ(Classify(r.out), (Names{"header-r", "result", "calls", "rusage"}));
  EXPECT_EQ(Classify(r.err), (Names{"mes", "accept"}));
  EXPECT_EQ(Extract(r.out).bytes, 20 * 8192);
}

}  // namespace
}  // namespace nicbench::testing
