// run --under-load on 127.0.0.1: against `nicbench serve` both phases' probes are answered and
// reported; against a stock iperf3 server the test still runs, and the output says that only
// this end's view was measured.
#include <cmath>
#include <csignal>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cpu_hogs.h"
#include "support/run_binary.h"
#include "support/wait.h"

namespace nicbench {
namespace {

using nlohmann::json;

// A 2 s idle phase: at 25 probes a second of each kind, a host whose two cores are taken by
// other work still answers well over 10 of the 50 new-connection probes (in 1 s it fell to 9).
constexpr int kIdleSeconds = 2;

json RunUnderLoad(int port, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {
      "run", "127.0.0.1", "-p",          std::to_string(port),         "--under-load",
      "-t",  "3",         "--idle-time", std::to_string(kIdleSeconds), "-J"};
  args.insert(args.end(), extra.begin(), extra.end());
  testing::ProcessResult r = testing::RunNicbench(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out;
  return doc;
}

TEST(UnderLoad, ProbesOfBothPhasesAgainstANicbenchServer) {
  testing::ServeChild server = testing::StartServe();
  const json doc = RunUnderLoad(server.port, {"--probe-rate", "50"});
  const json& u = doc["nicbench"]["under_load"];
  ASSERT_TRUE(u.is_object()) << doc["nicbench"].dump();
  for (const char* phase : {"idle", "loaded"}) {
    SCOPED_TRACE(phase);
    const json& probes = u["probes"][phase];
    ASSERT_TRUE(probes["kept"].is_object() && probes["fresh"].is_object()) << probes.dump();
    // 25 a second of each kind: a kept connection's requests and new connections.
    EXPECT_GT(probes["kept"]["transactions"].get<uint64_t>(), 10u) << probes.dump();
    EXPECT_GT(probes["fresh"]["transactions"].get<uint64_t>(), 10u) << probes.dump();
    EXPECT_TRUE(probes["kept"]["latency_buckets"].is_array());
    EXPECT_GT(u[phase]["kept"]["p50_ms"].get<double>(), 0.0);
    EXPECT_GT(u[phase]["connect"]["trimmed_mean_ms"].get<double>(), 0.0);
  }
  // Paced, not back to back: at most the rate over the phase (and a probe of slack).
  const json& idle_kept = u["probes"]["idle"]["kept"];
  EXPECT_LE(idle_kept["transactions"].get<uint64_t>(), 25u * kIdleSeconds + 2) << idle_kept.dump();
  EXPECT_TRUE(u["added_ms"].is_number()) << u.dump();
  EXPECT_GT(u["responsiveness"]["loaded"]["rpm"].get<double>(), 0.0);
  EXPECT_LT(u["probe_share"].get<double>(), 0.02) << "probes must stay a small share";
  // One-way delay: both ends read one clock, so the estimated offset is 0 within its bound,
  // and each direction of the kept probe is timed.
  const json& w = u["one_way"];
  for (const char* clock : {"idle_clock", "loaded_clock"}) {
    SCOPED_TRACE(clock);
    ASSERT_TRUE(w[clock].is_object()) << w.dump();
    EXPECT_LE(std::abs(w[clock]["offset_ms"].get<double>()), w[clock]["bound_ms"].get<double>())
        << w[clock].dump();
    // 8 exchanges idle; 4 loaded, where the idle estimate is carried when it is the narrower.
    EXPECT_GE(w[clock]["exchanges"].get<int>(), 4);
  }
  for (const char* phase : {"idle", "loaded"}) {
    for (const char* way : {"up", "down"}) {
      SCOPED_TRACE(std::string(phase) + " " + way);
      EXPECT_GT(w[phase][way]["count"].get<uint64_t>(), 10u) << w.dump();
      EXPECT_TRUE(w[phase][way]["p50_ms"].is_number()) << w.dump();
      EXPECT_TRUE(w[phase][way]["p99_ms"].is_number()) << w.dump();
    }
  }
  EXPECT_TRUE(w["added_up_ms"].is_number()) << w.dump();
  EXPECT_TRUE(w["added_down_ms"].is_number()) << w.dump();
  EXPECT_GE(w["added_bound_ms"].get<double>(), 0.0) << w.dump();
  // One way is never longer than the round trip it is part of (within the clock's bound).
  const double bound = w["idle_clock"]["bound_ms"].get<double>();
  EXPECT_LE(w["idle"]["up"]["p50_ms"].get<double>(),
            u["idle"]["kept"]["max_ms"].get<double>() + bound)
      << u.dump();
  // Loopback has a queue of its own (noqueue): sampled at both ends.
  EXPECT_FALSE(u["queues"].empty()) << u.dump();
  for (const json& q : u["queues"]) EXPECT_TRUE(q["bytes"].is_number()) << q.dump();
  server.process->Stop();
}

TEST(UnderLoad, TextSummaryShowsTheSection) {
  testing::ServeChild server = testing::StartServe();
  testing::ProcessResult r =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "--under-load",
                            "-t", "2", "--idle-time", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Latency under load"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("responsiveness:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Where the added delay sits"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("One-way delay of the kept connection's probes"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("server clock - client clock: idle"), std::string::npos) << r.out;
}

// Beside a busy loop on every core the probes wait on the scheduler now and then, not in a
// queue the test fills: no bufferbloat is raised on loopback.
TEST(UnderLoad, ABusyHostIsNotBufferbloat) {
  testing::ServeChild server = testing::StartServe();
  testing::CpuHogs hogs;
  const json doc = RunUnderLoad(server.port, {});
  for (const json& f : doc["findings"]) EXPECT_NE(f["id"], "bufferbloat") << f.dump();
  EXPECT_TRUE(doc["nicbench"]["under_load"]["added_ms"].is_number());
  server.process->Stop();
}

TEST(UnderLoad, AStockIperf3ServerAnswersNoProbesAndTheOutputSaysSo) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  const int port = testing::FreeTcpPort();
  // Not -1: the probe's refused test must not end the server before the real one.
  testing::BackgroundProcess server(
      {"iperf3", "-s", "-p", std::to_string(port), "-B", "127.0.0.1"});
  ASSERT_TRUE(testing::WaitListening(port)) << server.StderrSoFar();
  const json doc = RunUnderLoad(port, {});
  const json& u = doc["nicbench"]["under_load"];
  ASSERT_TRUE(u.is_object());
  EXPECT_NE(u["foreign_probes_unknown"].get<std::string>().find("stock iperf3"), std::string::npos)
      << u.dump();
  EXPECT_TRUE(u["loaded"]["kept"]["p50_ms"].is_null());
  // The load itself ran and its own RTT is measured.
  EXPECT_GT(doc["end"]["sum_received"]["bytes"].get<uint64_t>(), 0u);
  EXPECT_TRUE(u["loaded_rtt_ms"].is_number()) << u.dump();
  // No one-way figure without the server's timestamps: unknown with the reason, never 0.
  const json& w = u["one_way"];
  for (const char* key :
       {"added_up_ms", "added_down_ms", "added_bound_ms", "idle_clock", "loaded_clock"}) {
    SCOPED_TRACE(key);
    EXPECT_TRUE(w[key].is_null()) << w.dump();
    EXPECT_NE(w["unknown"][key].get<std::string>().find("stock iperf3"), std::string::npos)
        << w.dump();
  }
  EXPECT_TRUE(w["loaded"]["up"]["p50_ms"].is_null()) << w.dump();
  EXPECT_TRUE(w["loaded"]["down"]["p50_ms"].is_null()) << w.dump();
  server.Stop(SIGTERM);
}

}  // namespace
}  // namespace nicbench
