// The iperf3 options scripts pass (docs/engine.md, "Options iperf3 users pass"): each is
// taken with iperf3's meaning, a bad value is refused with exit 2 and a line naming it, and
// iperf3's rules hold (a repeated option takes the last value, -T prefixes every line, the
// "connected" lines come before the first interval). Against `nicbench serve` on 127.0.0.1.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"
#include "support/text.h"
#include "support/wait.h"

namespace nicbench {
namespace {

using nlohmann::json;

struct Bad {
  std::vector<std::string> args;
  std::string message;
};

TEST(Iperf3Options, BadValuesAreRefusedWithExitCode2) {
  const std::vector<Bad> cases = {
      {{"--sctp", "h"}, "SCTP is not supported"},
      {{"h", "-c", "h"}, "either as HOST or with -c"},
      {{"-f", "x", "h"}, "-f: 'x'"},
      {{"--dscp", "64", "h"}, "--dscp: 64 is out of range"},
      {{"--dscp", "fast", "h"}, "--dscp: 'fast'"},
      {{"-A", "x", "h"}, "-A"},
      {{"-A", "5000", "h"}, "-A: expected 0..1023, got '5000'"},
      {{"-L", "2000000", "h"}, "-L: expected 0..1048575, got '2000000'"},
      {{"--dont-fragment", "h"}, "--dont-fragment applies to UDP only"},
      {{"-m", "-u", "h"}, "-m/--mptcp applies to TCP only"},
      {{"-u", "--snd-timeout", "10", "h"}, "--snd-timeout applies to TCP only"},
      {{"-b", "1M/0", "h"}, "-b RATE/BURST: expected 1..1000, got '0'"},
      {{"-b", "1M/2000", "h"}, "-b RATE/BURST"},
      {{"--bind-dev", "averyveryverylongname", "h"}, "--bind-dev"},
      {{"--pacing-timer", "0", "h"}, "--pacing-timer"},
      {{"--fq-rate", "fast", "h"}, "--fq-rate"},
      {{"--cntl-ka", "1/2/3/4", "h"}, "--cntl-ka"},
  };
  for (const Bad& c : cases) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    testing::ProcessResult r = testing::RunNicbench(args);
    EXPECT_EQ(r.exit_code, 2) << c.args.front() << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos)
        << "expected '" << c.message << "' in: " << r.err;
  }
  testing::ProcessResult serve = testing::RunNicbench({"serve", "--sctp"});
  EXPECT_EQ(serve.exit_code, 2);
  EXPECT_NE(serve.err.find("SCTP is not supported"), std::string::npos) << serve.err;
}

std::vector<std::string> RunArgs(int port, std::vector<std::string> extra) {
  std::vector<std::string> args = {"run", "-c", "127.0.0.1", "-p", std::to_string(port), "-t", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

json RunJson(int port, std::vector<std::string> extra) {
  extra.push_back("-J");
  testing::ProcessResult r = testing::RunNicbench(RunArgs(port, extra));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_TRUE(doc.is_object()) << r.out;
  return doc;
}

TEST(Iperf3Options, ValuesReachTheTest) {
  testing::ServeChild serve = testing::StartServe();
  // Repeated options take the last value, as with iperf3's getopt.
  json doc = RunJson(serve.port, {"-t", "5", "-t", "1", "-b", "2G/4", "--fq-rate", "3G",
                                  "--pacing-timer", "2000", "--dscp", "EF", "--extra-data",
                                  "rack 7", "--snd-timeout", "5000", "--cntl-ka", "30/5/3"});
  EXPECT_EQ(doc["start"]["test_start"]["duration"], 1);
  EXPECT_EQ(doc["start"]["test_start"]["tos"], 184) << "EF is DSCP 46, TOS 46 << 2";
  EXPECT_EQ(doc["start"]["test_start"]["fqrate"], 3000000000u);
  EXPECT_EQ(doc["extra_data"], "rack 7");
  const json& spec = doc["nicbench"]["spec"];
  EXPECT_EQ(spec["burst"], 4);
  EXPECT_EQ(spec["rate_bits_per_second"], 2000000000u);
  EXPECT_EQ(spec["pacing_timer_us"], 2000);
  // --dscp keeps -S's two ECN bits.
  doc = RunJson(serve.port, {"-S", "0x03", "--dscp", "cs1"});
  EXPECT_EQ(doc["start"]["test_start"]["tos"], 35);
}

TEST(Iperf3Options, SocketOptionsRunAgainstTheKernel) {
  testing::ServeChild serve = testing::StartServe();
  EXPECT_FALSE(RunJson(serve.port, {"-u", "-b", "10M", "--dont-fragment"}).contains("error"));
  EXPECT_FALSE(RunJson(serve.port, {"-A", "0,0"}).contains("error"));
  EXPECT_FALSE(RunJson(serve.port, {"--cntl-ka"}).contains("error"));
  if (testing::IsRoot()) {
    EXPECT_FALSE(RunJson(serve.port, {"--bind-dev", "lo"}).contains("error"));
  }
  testing::ProcessResult r =
      testing::RunNicbench(RunArgs(serve.port, {"--bind-dev", "nb-no-such"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("SO_BINDTODEVICE=nb-no-such"), std::string::npos) << r.err;
  r = testing::RunNicbench(RunArgs(serve.port, {"-L", "5"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("needs an IPv6 connection"), std::string::npos) << r.err;
  // MPTCP where the kernel has it; where it does not, the error says so.
  r = testing::RunNicbench(RunArgs(serve.port, {"-m"}));
  if (r.exit_code != 0) {
    EXPECT_NE(r.err.find("does not offer MPTCP"), std::string::npos) << r.err;
  }
}

using testing::Lines;

TEST(Iperf3Options, TextTitleVerboseFormatAndConnectedLines) {
  testing::ServeChild serve = testing::StartServe();
  testing::ProcessResult r =
      testing::RunNicbench(RunArgs(serve.port, {"-T", "rack7", "-V", "-f", "K", "-i", "0.5"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_GT(lines.size(), 5u);
  for (const std::string& line : lines) EXPECT_TRUE(line.starts_with("rack7:  ")) << line;
  EXPECT_NE(lines[0].find("Connecting to host 127.0.0.1, port"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("[  1] local 127.0.0.1 port"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("Starting Test: protocol: TCP, 1 streams"), std::string::npos);
  EXPECT_NE(r.out.find("KBytes/sec"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("bits/sec"), std::string::npos) << "-f K: every rate in KBytes/sec";
  EXPECT_NE(r.out.find("CPU Utilization: local/sender"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("snd_tcp_congestion"), std::string::npos);
}

TEST(Iperf3Options, DebugAndLogfile) {
  testing::ServeChild serve = testing::StartServe();
  testing::ProcessResult r = testing::RunNicbench(RunArgs(serve.port, {"-d"}));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("debug: test spec"), std::string::npos) << r.err;

  char path[] = "/tmp/nicbench-logfile-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  r = testing::RunNicbench(RunArgs(serve.port, {"--logfile", path}));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.out.empty()) << r.out;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("receiver"), std::string::npos) << text.str();
  unlink(path);
}

TEST(Iperf3Options, ServeOneOffAndBitrateLimit) {
  testing::ServeChild once = testing::StartServe({"--one-off"});
  EXPECT_FALSE(RunJson(once.port, {}).contains("error"));
  // --one-off (iperf3's spelling of --once): the server exits after its one test.
  const bool exited = testing::WaitUntil([&] {
    std::ifstream stat("/proc/" + std::to_string(once.process->pid()) + "/stat");
    std::string pid, comm, state;
    stat >> pid >> comm >> state;
    return !stat || state == "Z";
  });
  EXPECT_TRUE(exited) << "serve --one-off still running after its test";

  testing::ServeChild limited = testing::StartServe({"--server-bitrate-limit", "100M/1"});
  // Asked for more than the limit: refused at once, in words for a nicbench client.
  testing::ProcessResult r = testing::RunNicbench(RunArgs(limited.port, {"-b", "60M", "-P", "2"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--server-bitrate-limit of 100"), std::string::npos) << r.err;
  // Unpaced TCP on loopback goes far beyond 100 Mbit/s: ended once a second has passed.
  r = testing::RunNicbench(RunArgs(limited.port, {"-t", "3"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("exceeds the server's --server-bitrate-limit"), std::string::npos) << r.err;
  if (testing::HaveProgram("iperf3")) {
    r = testing::RunProcess({"iperf3", "-c", "127.0.0.1", "-p", std::to_string(limited.port), "-t",
                             "1", "-b", "60M", "-P", "2"});
    EXPECT_NE((r.out + r.err).find("total required bandwidth is larger than server limit"),
              std::string::npos)
        << r.out << r.err;
  }
}

TEST(Iperf3Options, ServerRefusalsReachEachClientInItsWords) {
  testing::ServeChild serve = testing::StartServe({"--max-rate", "10M"});
  testing::ProcessResult r = testing::RunNicbench(RunArgs(serve.port, {"-b", "100M"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("10000000 bit/s"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("unknown iperf3 error"), std::string::npos) << r.err;
  if (!testing::HaveProgram("iperf3")) return;
  r = testing::RunProcess(
      {"iperf3", "-c", "127.0.0.1", "-p", std::to_string(serve.port), "-t", "1", "-b", "100M"});
  EXPECT_NE((r.out + r.err).find("total required bandwidth is larger than server limit"),
            std::string::npos)
      << r.out << r.err;
  r = testing::RunProcess(
      {"iperf3", "-c", "127.0.0.1", "-p", std::to_string(serve.port), "-t", "1", "--sctp"});
  EXPECT_NE((r.out + r.err).find("no SCTP support available"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace nicbench
