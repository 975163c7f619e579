// `nicbench run` and `nicbench serve` on the command line: every option parses or is refused
// with a clear message and exit code 2; in -J mode stdout holds exactly one JSON document,
// errors included.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/json_lines.h"
#include "support/run_binary.h"
#include "support/wait.h"

namespace nicbench {
namespace {

using nlohmann::json;

struct BadRun {
  std::vector<std::string> args;
  std::string message;  // part of the error line
};

TEST(EngineCli, RunRefusesBadValuesWithExitCode2) {
  const std::vector<BadRun> cases = {
      {{"-P", "0"}, "parallel"},
      {{"-P", "5000"}, "parallel"},
      {{"-t", "abc"}, "-t"},
      {{"-n", "1M", "-k", "10"}, "-n and -k"},
      {{"-l", "0"}, "-l"},
      {{"-l", "32M"}, "block length"},
      {{"-u", "-l", "4"}, "UDP block"},
      {{"-i", "0.05"}, "interval"},
      {{"-M", "20"}, "MSS"},
      {{"-S", "300"}, "-S"},
      {{"-S", "0xZZ"}, "-S"},
      {{"-4", "-6"}, "-4 and -6"},
      {{"-R", "--bidir", "h"}, "-R and --bidir"},
      {{"--zerocopy", "bogus"}, "--zerocopy"},
      {{"-p", "70000", "h"}, "-p"},
      {{"--cport", "99999", "h"}, "--cport"},
      {{"-b", "fast"}, "-b"},
      {{"-u", "-N", "h"}, "TCP only"},
      {{"--loopback", "h"}, "--loopback"},
      {{"--connect-timeout", "0", "h"}, "--connect-timeout"},
      {{"--no-such-option"}, "no-such-option"},
      {{"-C", "averyveryverylongccname"}, "congestion"},
  };
  for (const BadRun& c : cases) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    testing::ProcessResult r = testing::RunNicbench(args);
    EXPECT_EQ(r.exit_code, 2) << c.args.front() << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos)
        << "expected '" << c.message << "' in: " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(EngineCli, JsonErrorIsOneDocumentAndNonZeroExit) {
  testing::ProcessResult r = testing::RunNicbench({"run", "-J", "-P", "0"});
  EXPECT_EQ(r.exit_code, 2);
  json doc = json::parse(r.out);
  ASSERT_TRUE(doc.contains("error"));
  EXPECT_NE(doc["error"].get<std::string>().find("parallel"), std::string::npos);

  // Nothing listens on this port: a run-time failure, exit 1, still one JSON document.
  const int port = testing::FreeTcpPort();
  r = testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(port), "-J", "-t", "1"});
  EXPECT_EQ(r.exit_code, 1);
  doc = json::parse(r.out);
  EXPECT_NE(doc["error"].get<std::string>().find("unable to connect"), std::string::npos);
}

TEST(EngineCli, LoopbackRunsBothDirections) {
  testing::ProcessResult r = testing::RunNicbench({"run", "-J", "-t", "1", "-i", "0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One iperf3-shaped document per line, forward first (JSON Lines).
  json doc = testing::ParseJsonLines(r.out);
  ASSERT_EQ(doc["runs"].size(), 2u);
  for (const json& run : doc["runs"]) {
    EXPECT_GT(run["end"]["sum_received"]["bytes"].get<uint64_t>(), 0u);
    EXPECT_GE(run["intervals"].size(), 2u);
    EXPECT_TRUE(run["remote"].is_object()) << "a nicbench server reports its own view";
  }
  EXPECT_FALSE(doc["runs"][0]["start"]["test_start"]["reverse"].get<int>());
  EXPECT_TRUE(doc["runs"][1]["start"]["test_start"]["reverse"].get<int>());
}

TEST(EngineCli, LoopbackTextHasIntervalsAndSummary) {
  testing::ProcessResult r = testing::RunNicbench({"run", "-t", "1", "-T", "lo"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("lo:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("receiver"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reverse"), std::string::npos) << r.out;
}

TEST(EngineCli, ServeRefusesBadValuesWithExitCode2) {
  const std::vector<std::vector<std::string>> cases = {
      {"-p", "abc"},           {"--max-tests", "0"}, {"--max-streams", "5000"},
      {"--max-block", "0"},    {"--max-rate", "x"},  {"--idle-timeout", "-1"},
      {"--max-duration", "0"}, {"--bogus"},          {"--daemon", "-J"}};
  for (const auto& c : cases) {
    std::vector<std::string> args = {"serve"};
    args.insert(args.end(), c.begin(), c.end());
    testing::ProcessResult r = testing::RunNicbench(args);
    EXPECT_EQ(r.exit_code, 2) << c.front() << ": " << r.err;
    EXPECT_NE(r.err.find("nicbench serve:"), std::string::npos) << r.err;
  }
}

TEST(EngineCli, ServeRefusesABadConnectionRateNamingTheValue) {
  // Each value separate and in --opt=value form (a separate "-5" could be taken for an option).
  for (const std::string value : {"0", "-5", "abc", "12x", "2.5", "", "1000001", "99999999999"}) {
    for (bool joined : {false, true}) {
      // A value taken by mistake would serve until the bound: a failure, not a hang.
      std::vector<std::string> args = {
          testing::NicbenchPath(), "serve", "-p", "0", "--bind", "127.0.0.1"};
      if (joined) {
        args.push_back("--max-connections-per-second=" + value);
      } else {
        args.insert(args.end(), {"--max-connections-per-second", value});
      }
      testing::ProcessResult r = testing::RunProcess(args, "", std::chrono::seconds(20));
      EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(args) << ": " << r.err;
      // "--opt=" is an option without its value to the parser: its own message names it.
      const std::string message =
          joined && value.empty()
              ? "--max-connections-per-second: 1 required TEXT missing"
              : "nicbench serve: --max-connections-per-second: expected 1..1000000, got '" + value +
                    "'";
      EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    }
  }
  testing::ProcessResult missing = testing::RunNicbench({"serve", "--max-connections-per-second"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("--max-connections-per-second"), std::string::npos) << missing.err;
}

TEST(EngineCli, ServeOncePidfileAndJson) {
  const std::string pidfile = ::testing::TempDir() + "/nicbench-serve.pid";
  testing::ServeChild child = testing::StartServe({"--once", "-J", "--pidfile", pidfile});
  const int port = child.port;
  testing::BackgroundProcess& server = *child.process;
  std::ifstream in(pidfile);
  int pid = 0;
  in >> pid;
  EXPECT_EQ(pid, server.pid());
  testing::ProcessResult r =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(port), "-n", "1M", "-J"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(server.WaitForOutput("\"end\"", std::chrono::seconds(20)));
  testing::ProcessResult s = server.Stop(0);  // already exiting: --once
  json doc = json::parse(s.out);
  EXPECT_EQ(doc["end"]["sum_received"]["bytes"].get<uint64_t>(), 1048576u);
}

// True while `pid` is a live process (not gone, not a zombie waiting for its reaper).
bool Alive(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

TEST(EngineCli, ServeDaemonDetachesWritesPidfileAndServes) {
  const int port = testing::FreeTcpPort();
  const std::string dir = ::testing::TempDir();
  const std::string pidfile = dir + "/nicbench-daemon.pid";
  const std::string log = dir + "/nicbench-daemon.log";
  std::remove(pidfile.c_str());
  // stderr goes to a file: the daemon keeps a redirected stderr for its logs, and a pipe would
  // stay open as long as the daemon lives.
  testing::ProcessResult started = testing::RunProcess(
      {"sh", "-c",
       "exec \"$0\" serve --daemon --pidfile \"$1\" -p \"$2\" --bind 127.0.0.1 2>\"$3\"",
       testing::NicbenchPath(), pidfile, std::to_string(port), log});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  // The parent returns only after the child wrote its pid file.
  std::ifstream in(pidfile);
  int pid = 0;
  in >> pid;
  ASSERT_GT(pid, 0) << "no pid in " << pidfile;
  EXPECT_TRUE(Alive(pid));
  testing::ProcessResult r =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(port), "-n", "1M", "-J"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  EXPECT_TRUE(testing::WaitUntil([&] { return !Alive(pid); })) << "still running after SIGTERM";
  EXPECT_FALSE(std::ifstream(pidfile).good()) << "the pid file is removed on exit";
  std::ifstream log_in(log);
  const std::string text((std::istreambuf_iterator<char>(log_in)),
                         std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("serving on port " + std::to_string(port)), std::string::npos) << text;
}

TEST(EngineCli, ServeDaemonThatCannotListenExitsNonZero) {
  testing::ServeChild holder = testing::StartServe();
  testing::ProcessResult r = testing::RunNicbench(
      {"serve", "--daemon", "-p", std::to_string(holder.port), "--bind", "127.0.0.1"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("cannot listen"), std::string::npos) << r.err;
}

TEST(EngineCli, ByteTestEndingWithinOmitSaysNothingWasCounted) {
  testing::ServeChild server = testing::StartServe();
  testing::ProcessResult r = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", std::to_string(server.port), "-n", "1M", "-O", "2", "-J"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["end"]["sum_received"]["bytes"].get<uint64_t>(), 0u);
  bool empty = false;
  for (const auto& f : doc["findings"]) empty = empty || f["id"] == "measurement-empty";
  EXPECT_TRUE(empty) << doc["findings"].dump();
}

TEST(EngineCli, ServeIdleTimeoutExits) {
  const int port = testing::FreeTcpPort();
  testing::ProcessResult r = testing::RunNicbench(
      {"serve", "-p", std::to_string(port), "--idle-timeout", "1", "--bind", "127.0.0.1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("idle-timeout"), std::string::npos) << r.err;
}

TEST(EngineCli, ServeLimitsRefuseWithServerError) {
  testing::ServeChild child = testing::StartServe({"--max-streams", "2", "--max-duration", "5"});
  const int port = child.port;
  testing::BackgroundProcess& server = *child.process;
  testing::ProcessResult r =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(port), "-P", "4", "-t", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("parallel streams"), std::string::npos) << r.err;
  r = testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(port), "-t", "60"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("duration"), std::string::npos) << r.err;
  testing::ProcessResult s = server.Stop(SIGTERM);
  EXPECT_NE(s.err.find("refused"), std::string::npos) << s.err;
}

}  // namespace
}  // namespace nicbench
