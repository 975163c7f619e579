// `nicbench monitor` across the stand (docs/monitor.md), as real processes: the link's rate
// lowered mid-run (tbf at 100 Mbit/s instead of 1 Gbit/s) is a degradation event naming the
// goodput, resolved when the rate is restored; the far end's link taken down is a
// carrier-lost event, resolved when it comes up. Stands are named mon*.
#include <csignal>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/netns/monitor_stand.h"
#include "support/wait.h"

namespace nicbench::accuracy {
namespace {

TEST(MonitorStand, RateLoweredMidRunIsADegradationResolvedWhenRestored) {
  ACCURACY_SKIP_UNLESS_ROOT();
  stand::StandSpec spec;
  spec.name = "mondeg";
  spec.profile = stand::Profile::k1000BaseT;
  auto st = UpStand(spec);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  StandMonitor m(*st, "mondeg",
                 {"--every", "4s", "--test", "-t 2 -i 0.25 -C cubic", "--baseline-tests", "2",
                  "--sample-interval", "0.5s", "--probe-window", "1s"});
  // The baseline: two tests at the stand's 1 Gbit/s.
  ASSERT_TRUE(testing::WaitUntil([&] { return StoredRuns(m.runs(), "mondeg") >= 2; }))
      << m.monitor->StderrSoFar();
  const stand::HostInfo& h1 = st->host(1);
  auto slow = Tbf(h1, "100mbit", "15000", "625000");  // 50 ms of queue
  ASSERT_EQ(slow.exit_code, 0) << slow.err;
  ASSERT_TRUE(testing::WaitUntil([&] { return !Events(m.events(), "degraded", "opened").empty(); },
                                 std::chrono::seconds(90)))
      << FileText(m.events()) << m.monitor->StderrSoFar();
  const nlohmann::json opened = Events(m.events(), "degraded", "opened").front();
  EXPECT_EQ(opened["subject"], "forward");
  EXPECT_NE(opened["summary"].get<std::string>().find(" Mbit/s against a baseline of "),
            std::string::npos)
      << opened.dump();
  auto fast = Tbf(h1, "1gbit", "125000", "6250000");
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  ASSERT_TRUE(
      testing::WaitUntil([&] { return !Events(m.events(), "degraded", "resolved").empty(); },
                         std::chrono::seconds(90)))
      << FileText(m.events());
  EXPECT_EQ(Events(m.events(), "degraded", "resolved").front()["id"], opened["id"]);
  EXPECT_EQ(m.monitor->Stop(SIGTERM).exit_code, 0);
}

TEST(MonitorStand, CarrierDownAndUpIsAnEventEachWay) {
  ACCURACY_SKIP_UNLESS_ROOT();
  stand::StandSpec spec;
  spec.name = "moncar";
  spec.profile = stand::Profile::k1000BaseT;
  auto st = UpStand(spec);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  StandMonitor m(
      *st, "moncar",
      {"--every", "1h", "--test", "-t 1", "--sample-interval", "0.2s", "--probe-window", "1s"});
  ASSERT_TRUE(testing::WaitUntil([&] { return StoredRuns(m.runs(), "moncar") >= 1; }))
      << m.monitor->StderrSoFar();
  const stand::HostInfo& h2 = st->host(2);
  auto down = accuracy::Run(InHost(h2, {"ip", "link", "set", "dev", h2.interface, "down"}));
  ASSERT_EQ(down.exit_code, 0) << down.err;
  ASSERT_TRUE(testing::WaitUntil([&] {
    return !Events(m.events(), "carrier-lost", "opened").empty();
  })) << FileText(m.events())
      << m.monitor->StderrSoFar();
  EXPECT_EQ(Events(m.events(), "carrier-lost", "opened").front()["subject"], st->host(1).interface);
  auto up = accuracy::Run(InHost(h2, {"ip", "link", "set", "dev", h2.interface, "up"}));
  ASSERT_EQ(up.exit_code, 0) << up.err;
  ASSERT_TRUE(testing::WaitUntil([&] {
    return !Events(m.events(), "carrier-lost", "resolved").empty();
  })) << FileText(m.events());
  EXPECT_FALSE(m.monitor->Exited());
  EXPECT_EQ(m.monitor->Stop(SIGTERM).exit_code, 0);
}

}  // namespace
}  // namespace nicbench::accuracy
