// Request/response tests (--rr, --rr -u, --crr) between `nicbench run` and `nicbench serve` on
// 127.0.0.1 and ::1: every mode and option, both ends counting the same transactions, the
// percentiles in order, and a stock iperf3 server stopped at once with exit code 3.
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"
#include "support/wait.h"

namespace nicbench {
namespace {

using nlohmann::json;

struct RrRun {
  testing::ProcessResult result;
  json doc;
};

RrRun RunRr(const testing::ServeChild& server, const std::vector<std::string>& extra,
            const std::string& host = "127.0.0.1") {
  std::vector<std::string> args = {"run", host, "-p", std::to_string(server.port), "-J"};
  args.insert(args.end(), extra.begin(), extra.end());
  RrRun run;
  run.result = testing::RunNicbench(args);
  run.doc = json::parse(run.result.out, nullptr, false);
  return run;
}

// The end summary of a finished test, with the checks every mode shares: transactions counted
// by both ends (the server's from its own record), ordered percentiles, the service demand.
const json& ExpectGoodRr(const RrRun& run) {
  EXPECT_EQ(run.result.exit_code, 0) << run.result.out << run.result.err;
  static const json kEmpty = json::object();
  if (run.doc.is_discarded() || !run.doc.contains("end") || !run.doc["end"].contains("rr")) {
    ADD_FAILURE() << "no end.rr: " << run.result.out;
    return kEmpty;
  }
  const json& rr = run.doc["end"]["rr"];
  const json& local = rr["local"];
  EXPECT_GT(local["transactions"].get<uint64_t>(), 0u);
  EXPECT_GT(local["transactions_per_second"].get<double>(), 0.0);
  const json& lat = local["latency"];
  EXPECT_EQ(lat["count"].get<uint64_t>(), local["transactions"].get<uint64_t>());
  EXPECT_LE(lat["min_us"].get<double>(), lat["p50_us"].get<double>());
  EXPECT_LE(lat["p50_us"].get<double>(), lat["p90_us"].get<double>());
  EXPECT_LE(lat["p90_us"].get<double>(), lat["p99_us"].get<double>());
  EXPECT_LE(lat["p99_us"].get<double>(), lat["p99_9_us"].get<double>());
  EXPECT_LE(lat["p99_9_us"].get<double>(), lat["max_us"].get<double>());
  EXPECT_GT(lat["p50_us"].get<double>(), 0.0);
  EXPECT_TRUE(rr["local_process_us_per_transaction"].is_number());
  EXPECT_TRUE(rr["remote_process_us_per_transaction"].is_number());
  EXPECT_TRUE(rr["peer_transactions"].is_number_unsigned()) << rr.dump();
  // Each interval has its own figures; iperf3's members are still there.
  const json& intervals = run.doc["intervals"];
  EXPECT_FALSE(intervals.empty());
  for (const json& i : intervals) {
    EXPECT_TRUE(i.contains("sum"));
    EXPECT_TRUE(i["rr"]["transactions"].is_number_unsigned()) << i.dump();
  }
  return rr;
}

TEST(RrLoopback, TcpCountsTheSameTransactionsAtBothEnds) {
  auto server = testing::StartServe();
  RrRun run = RunRr(server, {"--rr", "-n", "2000"});
  const json& rr = ExpectGoodRr(run);
  EXPECT_EQ(rr["local"]["transactions"].get<uint64_t>(), 2000u);
  EXPECT_EQ(rr["peer_transactions"].get<uint64_t>(), 2000u);
}

// --rr-spin end to end: the server takes it from the parameters, both ends count alike, the
// record keeps it, and the cores it keeps busy are not reported as saturated.
TEST(RrLoopback, SpinningEndsCountTheSameAndSayTheySpun) {
  auto server = testing::StartServe();
  for (const char* transport : {"-4", "-u"}) {
    RrRun run = RunRr(server, {"--rr", transport, "-n", "3000", "--rr-spin", "100"});
    const json& rr = ExpectGoodRr(run);
    EXPECT_EQ(rr["local"]["transactions"].get<uint64_t>(), 3000u) << transport;
    EXPECT_EQ(rr["peer_transactions"].get<uint64_t>(), 3000u) << transport;
    EXPECT_EQ(run.doc["nicbench"]["spec"]["rr"]["spin_us"].get<uint32_t>(), 100u);
    for (const json& f : run.doc["findings"]) {
      EXPECT_NE(f["id"].get<std::string>(), "rr-core-saturated") << transport;
    }
  }
  testing::ProcessResult r =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "--rr", "-n",
                            "500", "--rr-spin", "100"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("each wait polls 100 us before it sleeps"), std::string::npos) << r.out;
}

TEST(RrLoopback, TcpTimedWithSizesBurstAndFlows) {
  auto server = testing::StartServe();
  RrRun run = RunRr(
      server, {"--rr", "-t", "1", "-i", "0.5", "-l", "100,4000", "-P", "3", "--rr-burst", "4"});
  const json& rr = ExpectGoodRr(run);
  // A timed test: each end closes its counted window on its own clock and timer (docs/rr.md),
  // so the counts agree within the 5% the rr-counts-disagree rule allows.
  const double ours = rr["local"]["transactions"].get<double>();
  const double theirs = rr["peer_transactions"].get<double>();
  EXPECT_NEAR(theirs, ours, ours * 0.05 + 12);
  for (const json& f : run.doc["findings"]) {
    EXPECT_NE(f["id"].get<std::string>(), "rr-counts-disagree");
  }
  EXPECT_EQ(run.doc["intervals"].size(), 2u);
  EXPECT_EQ(run.doc["end"]["streams"].size(), 3u);
}

TEST(RrLoopback, UdpCountsAndHasNoLossOnLoopback) {
  auto server = testing::StartServe();
  RrRun run = RunRr(server, {"--rr", "-u", "-n", "1000", "-l", "32,64"});
  const json& rr = ExpectGoodRr(run);
  EXPECT_EQ(rr["local"]["transactions"].get<uint64_t>(), 1000u);
  EXPECT_EQ(rr["local"]["lost"].get<uint64_t>(), 0u);
  EXPECT_EQ(rr["peer_transactions"].get<uint64_t>(), 1000u);
}

TEST(RrLoopback, UdpBurstOfOneByteMessages) {
  auto server = testing::StartServe();
  RrRun run =
      RunRr(server, {"--rr", "-u", "-t", "1", "--rr-burst", "8", "-P", "2", "--rr-timeout", "200"});
  ExpectGoodRr(run);
}

TEST(RrLoopback, CrrReportsConnectTimes) {
  auto server = testing::StartServe();
  RrRun run = RunRr(server, {"--crr", "-n", "300", "--rr-burst", "2"});
  const json& rr = ExpectGoodRr(run);
  EXPECT_EQ(rr["local"]["transactions"].get<uint64_t>(), 300u);
  EXPECT_EQ(rr["peer_transactions"].get<uint64_t>(), 300u);
  const json& connect = rr["local"]["connect"];
  ASSERT_TRUE(connect.is_object()) << rr.dump();
  EXPECT_EQ(connect["count"].get<uint64_t>(), 300u);
  EXPECT_LE(connect["p50_us"].get<double>(), rr["local"]["latency"]["p50_us"].get<double>());
}

TEST(RrLoopback, LoneCrrFlowCountsTheSameTransactionsAtBothEnds) {
  // One flow, one in flight: both ends run the blocking path (connect, request, response,
  // close without an epoll wait).
  auto server = testing::StartServe();
  RrRun run = RunRr(server, {"--crr", "-n", "500", "-l", "10,20"});
  const json& rr = ExpectGoodRr(run);
  EXPECT_EQ(rr["local"]["transactions"].get<uint64_t>(), 500u);
  EXPECT_EQ(rr["peer_transactions"].get<uint64_t>(), 500u);
  EXPECT_EQ(rr["local"]["connect"]["count"].get<uint64_t>(), 500u);
}

TEST(RrLoopback, CrrTimedOverIpv6) {
  auto server = testing::StartServe({"-B", "::1"});
  RrRun run = RunRr(server, {"--crr", "-t", "1"}, "::1");
  if (run.result.err.find("Cannot assign") != std::string::npos) GTEST_SKIP() << "no ::1";
  ExpectGoodRr(run);
}

TEST(RrLoopback, AThousandFlows) {
  auto server = testing::StartServe();
  RrRun run = RunRr(server, {"--rr", "-P", "1000", "-t", "1", "-i", "0"});
  const json& rr = ExpectGoodRr(run);
  EXPECT_EQ(run.doc["end"]["streams"].size(), 1000u);
  EXPECT_GE(rr["local"]["transactions"].get<uint64_t>(), 1000u);
}

TEST(RrLoopback, OmitIsLeftOutOfTheTotals) {
  auto server = testing::StartServe();
  RrRun run = RunRr(server, {"--rr", "-t", "1", "-O", "0.5", "-i", "0.5"});
  const json& rr = ExpectGoodRr(run);
  uint64_t counted = 0;
  for (const json& i : run.doc["intervals"]) {
    if (!i["sum"]["omitted"].get<bool>()) counted += i["rr"]["transactions"].get<uint64_t>();
  }
  EXPECT_EQ(rr["local"]["transactions"].get<uint64_t>(), counted);
}

TEST(RrLoopback, TextOutputShowsPercentiles) {
  auto server = testing::StartServe();
  testing::ProcessResult r = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", std::to_string(server.port), "--rr", "-t", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Transactions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("p99.9"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[ RR]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CPU per transaction"), std::string::npos) << r.out;
}

TEST(RrLoopback, ServerLimitsApply) {
  auto server = testing::StartServe({"--max-rr-flows", "4", "--max-block", "1K"});
  RrRun flows = RunRr(server, {"--rr", "-P", "5", "-t", "1"});
  EXPECT_EQ(flows.result.exit_code, 1);
  EXPECT_NE(flows.result.out.find("flows (-P) 5 out of range 1..4"), std::string::npos)
      << flows.result.out << flows.result.err;
  RrRun sizes = RunRr(server, {"--rr", "-l", "1,2K", "-t", "1"});
  EXPECT_EQ(sizes.result.exit_code, 1);
  EXPECT_NE(sizes.result.out.find("exceeds the limit of 1024 bytes"), std::string::npos)
      << sizes.result.out << sizes.result.err;
  RrRun time = RunRr(server, {"--rr", "-t", "1"});
  ExpectGoodRr(time);
}

TEST(RrLoopback, StockIperf3ServerStopsAtOnceWithExit3) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  const int port = testing::FreeTcpPort();
  testing::BackgroundProcess server(
      {"iperf3", "-s", "-p", std::to_string(port), "-B", "127.0.0.1"});
  ASSERT_TRUE(testing::WaitListening(port)) << server.StderrSoFar();
  testing::ProcessResult r =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(port), "--rr", "-t", "5"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE((r.out + r.err)
                .find("iperf3 has no request/response test: run `nicbench serve` on "
                      "127.0.0.1"),
            std::string::npos)
      << r.out << r.err;
  // The stock server is not stuck: a bulk test runs right after.
  testing::ProcessResult bulk =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(port), "-t", "1", "-J"});
  EXPECT_EQ(bulk.exit_code, 0) << bulk.err;
}

}  // namespace
}  // namespace nicbench
