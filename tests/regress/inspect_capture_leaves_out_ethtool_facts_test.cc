// Bug: `nicbench inspect --capture DIR` copied only /proc and /sys, so the tree read back with
// `--root DIR` showed every fact of the ethtool ioctls and rtnetlink (driver version, offloads,
// rings, channels, coalescing, driver statistics, qdisc) as "not in a captured tree": a
// snapshot sent for analysis did not carry TSO state, rings or coalescing (issue 27 item 10).
// The capture now keeps them as ethtool's and tc's texts and --root reads them back.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"
#include "support/text.h"

namespace nicbench::regress {
namespace {

// The default IPv4 route's interface from /proc/net/route; "" if none.
using testing::DefaultRouteInterface;

std::string Why(const nlohmann::json& nic, const char* fact) {
  return nic.contains("unknown") ? nic["unknown"].value(fact, "") : "";
}

TEST(InspectCaptureEthtoolFacts, ReadBackAsLive) {
  const std::string iface = DefaultRouteInterface();
  if (iface.empty()) GTEST_SKIP() << "this machine has no default IPv4 route";
  testing::ProcessResult live = testing::RunNicbench({"inspect", "--iface", iface, "--json"});
  ASSERT_EQ(live.exit_code, 0) << live.err;
  const nlohmann::json a = nlohmann::json::parse(live.out)["nic"];
  if (a["offloads"].is_null()) GTEST_SKIP() << iface << " answers no ETHTOOL_GFEATURES";
  char dir[] = "/tmp/nicbench-regress-capture-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  testing::ProcessResult captured =
      testing::RunNicbench({"inspect", "--capture", dir, "--iface", iface, "--json"});
  testing::ProcessResult back =
      testing::RunNicbench({"inspect", "--root", dir, "--iface", iface, "--json"});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(captured.exit_code, 0) << captured.err;
  ASSERT_EQ(back.exit_code, 0) << back.err;
  const nlohmann::json b = nlohmann::json::parse(back.out)["nic"];
  // Settings that do not move between two readings: equal, value or reason.
  for (const char* fact : {"driver", "driver_version", "firmware_version", "bus_info", "autoneg",
                           "offloads", "rings", "coalescing", "channels", "qdisc"}) {
    EXPECT_EQ(a[fact], b[fact]) << fact;
    EXPECT_EQ(Why(a, fact), Why(b, fact)) << fact;
  }
  // Counters move with the traffic; the capture holds the same ones.
  ASSERT_EQ(a["driver_stats"].is_null(), b["driver_stats"].is_null()) << Why(b, "driver_stats");
  if (!a["driver_stats"].is_null()) {
    EXPECT_EQ(a["driver_stats"].size(), b["driver_stats"].size());
  }
}

}  // namespace
}  // namespace nicbench::regress
