// run --under-load across the stand (docs/latency.md): with a deep FIFO at a 100baseTX
// bottleneck the loaded latency rises by about the queue's length over the rate and the
// finding places it beyond the two hosts; with a shallow one it stays near idle and nothing is
// raised; a deep qdisc on the sender's own egress is named as the place.
#include <algorithm>
#include <cmath>
#include <csignal>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "accuracy_stand.h"

namespace nicbench::accuracy {
namespace {

using nlohmann::json;

struct LoadedRun {
  json doc;
  json under;  // nicbench.under_load
};

// `nicbench serve` in host 2 (several tests at once: the probes are tests of their own) and
// `run --under-load ARGS` from host 1, with cubic: this machine's default may be BBR, which
// keeps a bottleneck's queue short by design.
LoadedRun UploadUnderLoad(const stand::StandSpec& spec, const std::vector<std::string>& args) {
  auto st = UpStand(spec);
  LoadedRun out;
  if (!st) {
    ADD_FAILURE() << st.error().ToString();
    return out;
  }
  const stand::HostInfo& server_host = st->host(2);
  testing::BackgroundProcess server(
      Prioritized(NicbenchIn(server_host, {"serve", "-p", "5201", "-B", server_host.address})));
  if (!WaitForListener(server_host, 5201)) {
    ADD_FAILURE() << "server did not listen: " << server.StderrSoFar();
    return out;
  }
  std::vector<std::string> run = {"run",
                                  server_host.address,
                                  "--under-load",
                                  "-t",
                                  "8",
                                  "--idle-time",
                                  "2",
                                  "-C",
                                  "cubic",
                                  "-O",
                                  "2",
                                  "-J"};
  run.insert(run.end(), args.begin(), args.end());
  testing::ProcessResult r = Run(Prioritized(NicbenchIn(st->host(1), run)));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  out.doc = ParseJson(r);
  if (out.doc.is_object()) out.under = out.doc["nicbench"]["under_load"];
  server.Stop(SIGTERM);
  return out;
}

// Three hosts on 1000baseT links through a switch whose ports run at 100baseTX with `limit` of
// queue: the queue forms in a hop that forwards, as at a router or a modem.
stand::StandSpec Bottleneck(const std::string& name, const std::string& limit) {
  stand::StandSpec spec;
  spec.name = name;
  spec.hosts = 3;
  spec.profile = stand::Profile::k1000BaseT;
  spec.bottleneck = stand::Profile::k100BaseTx;
  spec.queue_limit = stand::ParseQueueLimit(limit).value();
  return spec;
}

double QueueMs(const json& under, const std::string& end, const std::string& layer) {
  for (const json& q : under["queues"]) {
    if (q["end"] == end && q["layer"] == layer && q["ms"].is_number()) return q["ms"].get<double>();
  }
  return 0;
}

TEST(LatencyUnderLoad, ADeepFifoAtTheBottleneckAddsItsLength) {
  ACCURACY_SKIP_UNLESS_ROOT();
  // 100 ms at 100 Mbit/s: 1.25 MB of queue in the switch's port towards the server. Four
  // flows keep it between about three quarters full and full once the warm-up (-O 2) is over
  // (one flow's receive window and cubic's slow growth after HyStart take longer than the test
  // to fill a deep queue); sampled with tc while the stand was built, it held 0.9-1.25 MB.
  LoadedRun run = UploadUnderLoad(Bottleneck("lud", "100ms"), {"-P", "4"});
  ASSERT_TRUE(run.under.is_object()) << run.doc.dump().substr(0, 2000);
  const double idle = run.under["idle"]["kept"]["p50_ms"].get<double>();
  const double loaded = run.under["loaded"]["kept"]["p50_ms"].get<double>();
  EXPECT_LT(idle, 5.0) << "an idle veth answers in well under a millisecond";
  // The median probe waits about the queue's length over the rate.
  EXPECT_GT(loaded, 100 * 0.8) << run.under.dump();
  EXPECT_LT(loaded, 100 * 1.2) << run.under.dump();
  // Neither host holds the queue: the delay is beyond them, and the finding says so.
  const double added = run.under["added_ms"].get<double>();
  EXPECT_GT(run.under["beyond_ms"].get<double>(), 0.8 * added) << run.under["queues"].dump();
  const json* f = FindingOf(run.doc, "bufferbloat");
  ASSERT_NE(f, nullptr) << run.doc["findings"].dump();
  EXPECT_NE((*f)["title"].get<std::string>().find("beyond these two hosts"), std::string::npos)
      << f->dump();
}

TEST(LatencyUnderLoad, AShallowBottleneckStaysNearIdle) {
  ACCURACY_SKIP_UNLESS_ROOT();
  // 3 ms at 100 Mbit/s: 37.5 KB, a few frames.
  LoadedRun run = UploadUnderLoad(Bottleneck("lus", "3ms"), {});
  ASSERT_TRUE(run.under.is_object()) << run.doc.dump().substr(0, 2000);
  EXPECT_LT(run.under["added_ms"].get<double>(), 5.0) << run.under.dump();
  EXPECT_EQ(FindingOf(run.doc, "bufferbloat"), nullptr) << run.doc["findings"].dump();
}

TEST(LatencyUnderLoad, ASendersOwnDeepQdiscIsNamed) {
  ACCURACY_SKIP_UNLESS_ROOT();
  // The queue on the client's own egress: TCP small queues keep one flow's share of it to
  // about a millisecond of its rate, so eight flows fill it.
  stand::StandSpec spec;
  spec.name = "luq";
  spec.profile = stand::Profile::k100BaseTx;
  spec.queue_limit = stand::ParseQueueLimit("200ms").value();
  LoadedRun run = UploadUnderLoad(spec, {"-P", "8"});
  ASSERT_TRUE(run.under.is_object()) << run.doc.dump().substr(0, 2000);
  const double added = run.under["added_ms"].get<double>();
  EXPECT_GT(added, 10.0) << run.under.dump();
  EXPECT_GT(QueueMs(run.under, "client", "qdisc tbf"), 0.5 * added) << run.under["queues"].dump();
  const json* f = FindingOf(run.doc, "bufferbloat");
  ASSERT_NE(f, nullptr) << run.doc["findings"].dump();
  EXPECT_NE((*f)["title"].get<std::string>().find("client's qdisc tbf"), std::string::npos)
      << f->dump();
}

// A deep FIFO on one direction only (`stand up --queue-limit 200ms --queue-limit-on h1`): the
// upload fills it, the probes' requests wait in it, their responses do not. Both namespaces read
// one clock, so the estimated offset must be 0 within its bound.
TEST(LatencyUnderLoad, OneWayDelayShowsADeepUplinkInItsDirectionOnly) {
  ACCURACY_SKIP_UNLESS_ROOT();
  stand::StandSpec spec;
  spec.name = "luo";
  spec.profile = stand::Profile::k100BaseTx;
  spec.queue_limit = stand::ParseQueueLimit("200ms").value();
  spec.queue_limit_on = 1;
  LoadedRun run = UploadUnderLoad(spec, {"-P", "8"});
  ASSERT_TRUE(run.under.is_object()) << run.doc.dump().substr(0, 2000);
  const json& w = run.under["one_way"];
  for (const char* clock : {"idle_clock", "loaded_clock"}) {
    SCOPED_TRACE(clock);
    ASSERT_TRUE(w[clock].is_object()) << w.dump();
    EXPECT_LE(std::abs(w[clock]["offset_ms"].get<double>()), w[clock]["bound_ms"].get<double>())
        << w[clock].dump();
  }
  // The idle estimate, taken on an idle path, is the narrower: the loaded phase carries it,
  // so the clocks' error cancels in the added figures.
  EXPECT_TRUE(w["loaded_clock"]["carried"].get<bool>()) << w.dump();
  const double up = w["added_up_ms"].get<double>();
  const double down = w["added_down_ms"].get<double>();
  // As ASendersOwnDeepQdiscIsNamed: eight flows fill the 200 ms tbf well past 10 ms.
  EXPECT_GT(up, 10.0) << w.dump();
  // The way back carries only acknowledgements and the probes' 16-byte answers.
  EXPECT_LT(down, 5.0) << w.dump();
  EXPECT_GT(up, 5 * std::max(down, 0.5)) << w.dump();
  EXPECT_GT(w["loaded"]["up"]["p50_ms"].get<double>(), w["loaded"]["down"]["p50_ms"].get<double>())
      << w.dump();
  // The round trip's rise is the up direction's.
  EXPECT_NEAR(up, run.under["added_ms"].get<double>(), 0.25 * up + 2) << run.under.dump();
}

// iperf 2's own latency probe (`--bounceback`, Debian's iperf 2.1.8) through the same queue at
// the same time as nicbench's probes, while nicbench's four flows load it: the two means of a
// small message's round trip agree within 15%.
TEST(LatencyUnderLoad, Iperf2BouncebackAgreesThroughTheSameQueue) {
  ACCURACY_SKIP_UNLESS_ROOT();
  if (!testing::HaveProgram("iperf")) GTEST_SKIP() << "iperf (iperf 2) is not installed";
  auto st = UpStand(Bottleneck("lui", "100ms"));
  ASSERT_TRUE(st) << st.error().ToString();
  const stand::HostInfo& server_host = st->host(2);
  testing::BackgroundProcess server(
      Prioritized(NicbenchIn(server_host, {"serve", "-p", "5201", "-B", server_host.address})));
  testing::BackgroundProcess iperf2_server(InHost(server_host, {"iperf", "-s", "-p", "5002"}));
  ASSERT_TRUE(WaitForListener(server_host, 5201)) << server.StderrSoFar();
  ASSERT_TRUE(WaitForListener(server_host, 5002)) << iperf2_server.StderrSoFar();
  testing::BackgroundProcess load(Prioritized(NicbenchIn(
      st->host(1), {"run", server_host.address, "--under-load", "-t", "10", "-O", "2",
                    "--idle-time", "2", "-C", "cubic", "-P", "4", "--json-stream", "--no-store"})));
  // The load's fourth interval: past its warm-up, the queue full.
  ASSERT_TRUE(load.WaitForOutput("\"start\":3.0", std::chrono::seconds(60))) << load.StderrSoFar();
  testing::ProcessResult bb = accuracy::Run(InHost(
      st->host(1), {"iperf", "-c", server_host.address, "-p", "5002", "--bounceback", "-t", "5"}));
  testing::ProcessResult ours = load.Wait();
  server.Stop(SIGTERM);
  iperf2_server.Stop(SIGTERM);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  // "[  1] 0.0000-5.0123 sec ... 50=82.123/0.010/101.8/12.3 ms": count=mean/min/max/stdev.
  // The per-second lines match too: the total is the last line that starts at 0.
  const std::regex line(
      R"(\[\s*1\] 0\.0000-[0-9.]+ sec.* ([0-9]+)=([0-9.]+)/[0-9.]+/[0-9.]+/[0-9.]+ ms)");
  std::smatch m;
  for (auto it = std::sregex_iterator(bb.out.begin(), bb.out.end(), line);
       it != std::sregex_iterator(); ++it) {
    m = *it;
  }
  ASSERT_FALSE(m.empty()) << bb.out << bb.err;
  const double theirs = std::stod(m[2]);
  EXPECT_GE(std::stoi(m[1]), 20) << bb.out;
  const std::string last = ours.out.substr(ours.out.rfind("{\"event\":\"end\""));
  const json end = json::parse(last, nullptr, false);
  ASSERT_FALSE(end.is_discarded()) << last.substr(0, 500);
  const json& u = end["data"]["nicbench"]["run"]["under_load"];
  // Means against means: iperf 2 reports a plain mean.
  const double mine = u["probes"]["loaded"]["kept"]["latency"]["mean_us"].get<double>() / 1000;
  EXPECT_GT(mine, 50.0) << u.dump();
  EXPECT_LT(RelativeError(mine, theirs), 0.15)
      << "nicbench " << mine << " ms, iperf 2 " << theirs << " ms\n"
      << bb.out;
}

}  // namespace
}  // namespace nicbench::accuracy
