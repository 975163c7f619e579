// The live progress line: drawn in place on a terminal (run under a pseudo-terminal with
// util-linux's `script`), erased before each interval line and at the end; never in piped
// output, never with -J or --json-stream.
#include <string>

#include <gtest/gtest.h>

#include "report/progress_line.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

const std::string kErase = "\r\033[K";

// `nicbench ARGS` with stdout on a pseudo-terminal; what the terminal received.
testing::ProcessResult OnTerminal(const std::string& args) {
  return testing::RunProcess({"script", "-qec", testing::NicbenchPath() + " " + args, "/dev/null"});
}

TEST(ProgressLine, DrawnInPlaceAndErasedOnATerminal) {
  if (!testing::HaveProgram("script")) GTEST_SKIP() << "util-linux's script is not installed";
  auto server = testing::StartServe();
  auto run =
      OnTerminal("run 127.0.0.1 -p " + std::to_string(server.port) + " -t 1.5 -i 0.5 --no-store");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string& out = run.out;
  const size_t first = out.find(kErase + "[");
  ASSERT_NE(first, std::string::npos) << "no progress line:\n" << out;
  EXPECT_NE(out.find("/1.5 s]"), std::string::npos);
  EXPECT_NE(out.find("client->server"), std::string::npos) << "no rate once an interval closed";
  // The last drawing is erased before anything else is written on its line.
  const size_t last = out.rfind("/1.5 s]");
  const size_t erase = out.find(kErase, last);
  ASSERT_NE(erase, std::string::npos) << "the progress line was left on screen";
  EXPECT_LT(erase, out.find('\n', last));
  const size_t end_of_line = erase;
  EXPECT_NE(out.find("sender", end_of_line), std::string::npos) << "summary after the erase";
}

TEST(ProgressLine, RequestResponseShowsTransactionsAndPercentiles) {
  if (!testing::HaveProgram("script")) GTEST_SKIP() << "util-linux's script is not installed";
  auto server = testing::StartServe();
  auto run = OnTerminal("run 127.0.0.1 -p " + std::to_string(server.port) +
                        " --rr -t 1.5 -i 0.5 --no-store");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string& out = run.out;
  const size_t drawn = out.find(" tx/s  p50 ");
  ASSERT_NE(drawn, std::string::npos) << "no transactions in the progress line:\n" << out;
  EXPECT_NE(out.find("  p99 ", drawn), std::string::npos) << out;
  EXPECT_EQ(out.find("client->server"), std::string::npos) << "a bulk rate in an RR test";
  const size_t last = out.rfind(" tx/s  p50 ");
  const size_t erase = out.find(kErase, last);
  ASSERT_NE(erase, std::string::npos) << "the progress line was left on screen";
  EXPECT_LT(erase, out.find('\n', last));
}

TEST(ProgressLine, NeverInPipedOrJsonOutput) {
  auto server = testing::StartServe();
  const std::string port = std::to_string(server.port);
  auto piped = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", port, "-t", "0.6", "-i", "0.3", "--no-store"});
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out.find('\033'), std::string::npos);
  EXPECT_EQ(piped.out.find('\r'), std::string::npos);
  if (!testing::HaveProgram("script")) GTEST_SKIP() << "util-linux's script is not installed";
  for (const char* mode : {"-J", "--json-stream"}) {
    auto as_json = OnTerminal("run 127.0.0.1 -p " + port + " -t 0.6 -i 0.3 --no-store " + mode);
    ASSERT_EQ(as_json.exit_code, 0) << as_json.out;
    EXPECT_EQ(as_json.out.find('\033'), std::string::npos) << mode;
  }
}

TEST(ProgressLine, RrText) {
  record::RrStats rr;
  rr.transactions = 2730984;
  rr.seconds = 100;
  EXPECT_EQ(report::ProgressLine::RrText(3.25, 10, rr), "[  3.2/10.0 s] 27309.8 tx/s");
  rr.latency = record::LatencySummary{27310, 36, 18, 35.14, 38.2, 1052, 2000, 9000};
  rr.lost = 2;
  EXPECT_EQ(report::ProgressLine::RrText(1, 0, rr),
            "[  1.0 s] 27309.8 tx/s  p50 35.1 us  p99 1.05 ms  lost 2");
}

TEST(ProgressLine, Text) {
  EXPECT_EQ(report::ProgressLine::Text(3.25, 10, std::nullopt, std::nullopt), "[  3.2/10.0 s]");
  EXPECT_EQ(report::ProgressLine::Text(12, 10, std::nullopt, std::nullopt), "[ 10.0/10.0 s]");
  EXPECT_EQ(report::ProgressLine::Text(1, 0, std::nullopt, std::nullopt), "[  1.0 s]");
  EXPECT_NE(report::ProgressLine::Text(1, 2, 9.41e9, 1e6)
                .find("client->server 9.41 Gbits/sec "
                      "server->client"),
            std::string::npos);
}

}  // namespace
}  // namespace nicbench
