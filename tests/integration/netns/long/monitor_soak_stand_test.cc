// `nicbench monitor` for minutes on a three-host stand (issue 30, "Soak and monitor";
// docs/monitor.md, "What the stand tests show"), one test so the stand is built once:
//  1. clean: a monitor in h1 watching `nicbench serve` in h2 over shaped 1000baseT links, its
//     periodic tests every 30 s and its probes between them, raises no event for six periods;
//  2. a planted softirq storm: h3 floods h1 with 64-byte UDP datagrams (nicbench's own client
//     against a second serve in h1) for a bounded time, from one core, while RPS sends every
//     packet the switch and h1 receive to another core's backlog: the monitor names that core
//     and NET_RX softirq, explains it by the packets, carries the latency probe's rise, and
//     resolves the event when the flood ends.
// Labelled `long` (tests/CMakeLists.txt): scripts/check runs it in the optimized build only.
#include <sched.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/netns/monitor_stand.h"
#include "support/wait.h"

namespace nicbench::accuracy {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

// The clean phase: this many periods of the monitor's tests (both directions each), --every
// apart. Six periods at 30 s are three minutes: two periods make the baseline, four are judged.
constexpr int kCleanPeriods = 6;
// How long h3 floods: longer than --saturated-for (10 s, the default) with room for the
// monitor's one-second samples on either side.
constexpr int kFloodSeconds = 20;

// The CPUs this process may use, in order.
std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// Every receive queue of `device` in namespace `netns` hands its packets to `cpu`'s backlog
// (RPS, /sys/class/net/DEV/queues/rx-N/rps_cpus); "" or the failure.
std::string SteerReceiveTo(const std::string& netns, const std::string& device, int cpu) {
  const std::string mask = fmt::format("{:x}", 1u << cpu);
  const auto r = Run({"ip", "netns", "exec", netns, "sh", "-c",
                      fmt::format("for q in /sys/class/net/{}/queues/rx-*/rps_cpus; do "
                                  "echo {} > $q || exit 1; done",
                                  device, mask)});
  return r.exit_code == 0 ? "" : device + ": " + r.err;
}

// "latency probe: request/response p99 12.34 ms, baseline 0.21 ms" -> {12.34, 0.21}; NaNs when
// the event carries no such line.
std::pair<double, double> ProbeEvidence(const nlohmann::json& event) {
  static const std::regex kLine(R"(latency probe: .* p99 ([0-9.]+) ms, baseline ([0-9.]+) ms)");
  for (const auto& line : event["evidence"]) {
    std::smatch m;
    const std::string text = line.get<std::string>();
    if (std::regex_search(text, m, kLine)) return {std::stod(m[1]), std::stod(m[2])};
  }
  return {std::nan(""), std::nan("")};
}

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

TEST(MonitorSoakStand, CleanForMinutesThenAFloodSaturatesACoreUntilItStops) {
  ACCURACY_SKIP_UNLESS_ROOT();
  const std::vector<int> cpus = AllowedCpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs: one floods, the other receives";
  const int rx_cpu = cpus[0], flood_cpu = cpus[1];
  stand::StandSpec spec;
  spec.name = "monfl";
  spec.hosts = 3;
  spec.profile = stand::Profile::k1000BaseT;
  auto st = UpStand(spec);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  const auto start = Clock::now();
  StandMonitor m(*st, "monfl",
                 {"--every", "30s", "--test", "-t 3 -C cubic --both-directions", "--baseline-tests",
                  "2", "--probe-window", "2s"},
                 /*prioritized=*/true);

  // 1. Clean: the periods' tests stored (the monitor's own schedule makes the minutes), and
  // not one event line.
  ASSERT_TRUE(testing::WaitUntil([&] { return StoredRuns(m.runs(), "monfl") >= 2 * kCleanPeriods; },
                                 seconds(30 * kCleanPeriods + 120)))
      << FileText(m.events()) << m.monitor->StderrSoFar();
  const double clean_seconds = SecondsSince(start);
  std::printf("clean phase: %d periods of tests in %.0f s\n", kCleanPeriods, clean_seconds);
  EXPECT_TRUE(AllEvents(m.events()).empty()) << FileText(m.events());

  // 2. The storm. The switch's port from h3 and h1's own link hand their packets to rx_cpu,
  // so the flood's receive work (the bridge, h1's tbf-less ingress, UDP) runs there while the
  // flooder sends from flood_cpu.
  const stand::HostInfo &h1 = st->host(1), &h3 = st->host(3);
  ASSERT_EQ(
      SteerReceiveTo(st->info().switch_netns, stand::SwitchPort(st->info().spec.name, 3), rx_cpu),
      "");
  ASSERT_EQ(SteerReceiveTo(h1.netns, h1.interface, rx_cpu), "");
  testing::BackgroundProcess sink(NicbenchIn(h1, {"serve", "-p", "5202", "-B", h1.address}));
  ASSERT_TRUE(WaitForListener(h1, 5202)) << sink.StderrSoFar();
  const auto flood_start = Clock::now();
  testing::BackgroundProcess flood(NicbenchIn(
      h3, {"run", h1.address, "-p", "5202", "-u", "-b", "0", "-l", "64", "-t",
           std::to_string(kFloodSeconds), "-A", fmt::format("{},{}", flood_cpu, flood_cpu)}));
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return !Events(m.events(), "core-saturated", "opened").empty(); }, seconds(90)))
      << FileText(m.events()) << flood.StderrSoFar();
  std::printf("core-saturated opened %.0f s into the flood\n", SecondsSince(flood_start));
  const nlohmann::json opened = Events(m.events(), "core-saturated", "opened").front();
  std::printf("%s\n", opened.dump(2).c_str());
  EXPECT_EQ(opened["subject"], fmt::format("cpu{}", rx_cpu));
  const std::string summary = opened["summary"];
  EXPECT_NE(summary.find("saturated by NET_RX softirq"), std::string::npos) << summary;
  EXPECT_NE(opened["evidence"].dump().find("a flood of packets explains the busy core"),
            std::string::npos)
      << opened.dump(2);
  const auto [p99_ms, baseline_ms] = ProbeEvidence(opened);
  EXPECT_GT(p99_ms, baseline_ms) << opened.dump(2);

  // The flood ends by its own duration; the core is given back and the event resolves.
  const testing::ProcessResult flooded = flood.Wait(seconds(kFloodSeconds + 120));
  std::printf("flood ended after %.0f s (exit %d)\n", SecondsSince(flood_start), flooded.exit_code);
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return !Events(m.events(), "core-saturated", "resolved").empty(); }, seconds(60)))
      << FileText(m.events());
  EXPECT_EQ(Events(m.events(), "core-saturated", "resolved").front()["id"], opened["id"]);
  EXPECT_FALSE(m.monitor->Exited());
  EXPECT_EQ(m.monitor->Stop(SIGTERM).exit_code, 0);
  std::printf("whole test (stand up to monitor stopped): %.0f s\n", SecondsSince(start));
  std::printf("events:\n%s\n", FileText(m.events()).c_str());
}

}  // namespace
}  // namespace nicbench::accuracy
