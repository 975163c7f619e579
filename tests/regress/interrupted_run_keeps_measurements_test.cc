// Bug: a run that was interrupted (Ctrl-C) or whose server died mid-test threw away what it had
// measured: the terminal got no summary, and -J wrote `"intervals": []` and `"end": {}` although
// intervals had been measured (iperf3 keeps them). The run now reports what it measured up to
// the failure, marked incomplete, with the error; the exit codes are unchanged (130, 1).
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server_test_util.h"
#include "support/wait.h"

namespace nicbench::regress {
namespace {

using namespace std::chrono_literals;

// The bytes the server's TCP connections on `port` have received (tcp_info's bytes_received
// from ss(8), summed: the control connection's few bytes and the data stream's).
uint64_t ReceivedOnPort(int port) {
  const testing::ProcessResult ss = testing::RunProcess(
      {"ss", "-Htin", "state", "established", "sport", "=", ":" + std::to_string(port)});
  uint64_t total = 0;
  const std::string key = "bytes_received:";
  for (size_t at = ss.out.find(key); at != std::string::npos; at = ss.out.find(key, at + 1)) {
    total += std::strtoull(ss.out.c_str() + at + key.size(), nullptr, 10);
  }
  return total;
}

// Waits until the client is well into its test by its own clock: its stream is paced at
// 100 Mbit/s, so once the server has received five of its 0.2 s intervals' worth, the client has
// been sending for at least a second and its first intervals have closed. It was a fixed 1.5 s
// after the stream connected, which a slowly starting client (a sanitizer build, a busy host)
// could spend before its first interval; this waits for the client's progress instead.
void WaitUntilMeasuring(int port) {
  constexpr uint64_t kPerInterval = 100'000'000 / 8 / 5;  // -b 100M, -i 0.2 (StartClient)
  uint64_t received = 0;
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        received = ReceivedOnPort(port);
        return received >= 5 * kPerInterval;
      },
      60s, 50ms))
      << "the test never got going: " << received << " bytes received";
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
  WaitUntilMeasuring(serve.port);
  testing::ProcessResult r = client->Stop(SIGINT);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  ExpectPartialDocument(r);
}

TEST(InterruptedRun, ServerDyingMidTestKeepsIntervalsAndTotalsWithTheError) {
  ServeChild serve = StartServe();
  auto client = StartClient(serve.port, true);
  WaitUntilMeasuring(serve.port);
  serve.process->Stop(SIGKILL);
  testing::ProcessResult r = client->Stop(0);  // no signal: it ends by itself
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ExpectPartialDocument(r);
}

TEST(InterruptedRun, CtrlCOnTheTerminalPrintsThePartialSummary) {
  ServeChild serve = StartServe();
  auto client = StartClient(serve.port, false);
  WaitUntilMeasuring(serve.port);
  testing::ProcessResult r = client->Stop(SIGINT);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.out.find(" sender"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("incomplete"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Not diagnosed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("No problems found"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace nicbench::regress
