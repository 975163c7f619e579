// Bug: a run that was interrupted (Ctrl-C) or whose server died mid-test threw away what it had
// measured: the terminal got no summary, and -J wrote `"intervals": []` and `"end": {}` although
// intervals had been measured (iperf3 keeps them). The run now reports what it measured up to
// the failure, marked incomplete, with the error; the exit codes are unchanged (130, 1).
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server_test_util.h"
#include "support/wait.h"

namespace nicbench::regress {
namespace {

using namespace std::chrono_literals;

// Established TCP connections whose local port is `port` (the server's control and data
// sockets), from /proc/net/tcp.
int EstablishedOnPort(int port) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // header
  int count = 0;
  char local[64], remote[64], state[8];
  while (std::getline(in, line)) {
    if (std::sscanf(line.c_str(), "%*s %63s %63s %7s", local, remote, state) != 3) continue;
    const std::string l(local);
    const int local_port = std::stoi(l.substr(l.find(':') + 1), nullptr, 16);
    if (local_port == port && std::string(state) == "01") ++count;
  }
  return count;
}

// Bytes process `pid` has read so far: rchar of /proc/PID/io counts every read(2) and recv(2).
uint64_t BytesRead(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/io");
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "rchar:") return value;
  }
  return 0;
}

// Waits until the test's data stream is connected (control + data), then until the server has
// read a second's worth of the client's paced data (-b 100M: 12.5 MB): the client's own clock
// has then passed five of its 0.2 s intervals, however slowly this host runs it. The bound is a
// safety net against a hang, not a timing assertion.
void WaitUntilMeasuring(int port, pid_t server) {
  ASSERT_TRUE(testing::WaitUntil([&] { return EstablishedOnPort(port) >= 2; }))
      << "the test never started";
  const uint64_t start = BytesRead(server);
  ASSERT_TRUE(testing::WaitUntil([&] { return BytesRead(server) - start >= 12'500'000; }))
      << "the server read only " << BytesRead(server) - start << " bytes";
}

std::unique_ptr<testing::BackgroundProcess> StartClient(int port, bool json) {
  std::vector<std::string> argv = {testing::NicbenchPath(),
                                   "run",
                                   "127.0.0.1",
                                   "-p",
                                   std::to_string(port),
                                   "-t",
                                   "60",
                                   "-i",
                                   "0.2",
                                   "-b",
                                   "100M"};
  if (json) argv.push_back("-J");
  return std::make_unique<testing::BackgroundProcess>(argv);
}

void ExpectPartialDocument(const testing::ProcessResult& r) {
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out << r.err;
  EXPECT_TRUE(doc.contains("error")) << r.out;
  ASSERT_GE(doc["intervals"].size(), 2u) << "the measured intervals were dropped";
  const auto& end = doc["end"];
  EXPECT_EQ(end.value("incomplete", false), true) << end.dump();
  ASSERT_TRUE(end.contains("sum_sent")) << end.dump();
  EXPECT_GT(end["sum_sent"]["bytes"].get<uint64_t>(), 0u);
  // The receiver's count was never exchanged: absent with a reason, not 0.
  EXPECT_FALSE(end.contains("sum_received")) << end.dump();
  EXPECT_TRUE(end["unknown"].contains("sum_received")) << end.dump();
  ASSERT_EQ(end["streams"].size(), 1u);
  EXPECT_FALSE(end["streams"][0].contains("receiver"));
  EXPECT_GT(end["streams"][0]["sender"]["bytes"].get<uint64_t>(), 0u);
}

TEST(InterruptedRun, SigintWithJsonKeepsIntervalsAndTotalsMarkedIncomplete) {
  ServeChild serve = StartServe();
  auto client = StartClient(serve.port, true);
  WaitUntilMeasuring(serve.port, serve.process->pid());
  testing::ProcessResult r = client->Stop(SIGINT);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  ExpectPartialDocument(r);
}

TEST(InterruptedRun, ServerDyingMidTestKeepsIntervalsAndTotalsWithTheError) {
  ServeChild serve = StartServe();
  auto client = StartClient(serve.port, true);
  WaitUntilMeasuring(serve.port, serve.process->pid());
  serve.process->Stop(SIGKILL);
  testing::ProcessResult r = client->Stop(0);  // no signal: it ends by itself
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ExpectPartialDocument(r);
}

TEST(InterruptedRun, CtrlCOnTheTerminalPrintsThePartialSummary) {
  ServeChild serve = StartServe();
  auto client = StartClient(serve.port, false);
  WaitUntilMeasuring(serve.port, serve.process->pid());
  testing::ProcessResult r = client->Stop(SIGINT);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.out.find(" sender"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("incomplete"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Not diagnosed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("No problems found"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace nicbench::regress
