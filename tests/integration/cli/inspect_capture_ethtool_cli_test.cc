// `inspect --capture` of a veth in a namespace made by the test, with TSO turned off, two
// channels and a tbf root (and rings, should this kernel's veth take them), read back with
// `inspect --root DIR --json`: every fact that comes from the ethtool ioctls or rtnetlink equals
// the live `inspect` of the same interface, value or reason, and none reads "not in a captured
// tree". Root only; skipped otherwise. NICBENCH_STAND_PREFIX prefixes the namespace's name.
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench {
namespace {

using testing::IsRoot;
using testing::ProcessResult;
using testing::RunProcess;

class CaptureVeth : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!IsRoot()) GTEST_SKIP() << "needs root (a network namespace, veth, ethtool -K, tc)";
    const char* prefix = std::getenv("NICBENCH_STAND_PREFIX");
    ns_ = (prefix != nullptr ? std::string(prefix) : "") + "nbcap-" + std::to_string(::getpid());
    RunProcess({"ip", "netns", "del", ns_});  // a leftover of a killed run
    ASSERT_EQ(Run({"ip", "netns", "add", ns_}), 0);
    created_ = true;
    // No IPv6: its router solicitations would move counters between the two readings.
    Run({"ip", "netns", "exec", ns_, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"});
    Run({"ip", "netns", "exec", ns_, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"});
    ASSERT_EQ(InNs({"ip", "link", "add", "nbcapA", "type", "veth", "peer", "name", "nbcapB"}), 0);
    ASSERT_EQ(InNs({"ip", "link", "set", "nbcapA", "up"}), 0);
    ASSERT_EQ(InNs({"ip", "link", "set", "nbcapB", "up"}), 0);
    ASSERT_EQ(InNs({"ethtool", "-K", "nbcapA", "tso", "off"}), 0);
    // veth's channel maximum is the number of CPUs; rings it refuses on 6.18 (EOPNOTSUPP).
    two_channels_ = InNs({"ethtool", "-L", "nbcapA", "rx", "2", "tx", "2"}) == 0;
    InNs({"ethtool", "-G", "nbcapA", "rx", "512", "tx", "512"});
    ASSERT_EQ(InNs({"tc", "qdisc", "add", "dev", "nbcapA", "root", "tbf", "rate", "100mbit",
                    "burst", "32kb", "latency", "50ms", "overhead", "24"}),
              0);
    char dir[] = "/tmp/nicbench-capture-veth-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    if (created_) RunProcess({"ip", "netns", "del", ns_});
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  static int Run(const std::vector<std::string>& argv) { return RunProcess(argv).exit_code; }
  int InNs(std::vector<std::string> argv) {
    argv.insert(argv.begin(), {"ip", "netns", "exec", ns_});
    return Run(argv);
  }
  // nicbench ARGS inside the namespace (`ip netns exec` mounts the namespace's sysfs).
  nlohmann::json NicbenchJson(std::vector<std::string> args) {
    args.insert(args.begin(), {"ip", "netns", "exec", ns_, testing::NicbenchPath()});
    ProcessResult r = RunProcess(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  std::string ns_, dir_;
  bool created_ = false, two_channels_ = false;
};

// What the ioctls (ethtool IF, -i, -k, -g, -c, -l, -S) and rtnetlink (the root qdisc) give.
const char* const kEthtoolFacts[] = {"driver",     "driver_version", "firmware_version",
                                     "bus_info",   "speed_mbps",     "duplex",
                                     "autoneg",    "offloads",       "rings",
                                     "coalescing", "channels",       "driver_stats",
                                     "qdisc"};

TEST_F(CaptureVeth, EveryEthtoolFactReadsBackAsLive) {
  const nlohmann::json live = NicbenchJson({"inspect", "--iface", "nbcapA", "--json"});
  const nlohmann::json captured =
      NicbenchJson({"inspect", "--capture", dir_, "--iface", "nbcapA", "--json"});
  // Read outside the namespace: the tree alone carries the facts.
  ProcessResult r =
      testing::RunNicbench({"inspect", "--root", dir_, "--iface", "nbcapA", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json back = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(live.contains("nic") && captured.contains("nic") && back.contains("nic")) << r.out;
  const nlohmann::json& a = live["nic"];
  const nlohmann::json& b = back["nic"];
  EXPECT_EQ(captured["nic"], b) << "--capture describes the tree it wrote";
  for (const char* fact : kEthtoolFacts) {
    EXPECT_EQ(a[fact], b[fact]) << fact;
    const std::string live_why = a.contains("unknown") ? a["unknown"].value(fact, "") : "";
    const std::string back_why = b.contains("unknown") ? b["unknown"].value(fact, "") : "";
    EXPECT_EQ(live_why, back_why) << fact;
    EXPECT_EQ(back_why.find("captured tree"), std::string::npos) << fact << ": " << back_why;
  }
  // The facts the capture is sent for, known and as set.
  EXPECT_EQ(b["driver"], "veth");
  bool tso_seen = false;
  for (const auto& o : b["offloads"]) {
    if (o["name"] == "tcp-segmentation-offload") {
      tso_seen = true;
      EXPECT_EQ(o["on"], false);
    }
  }
  EXPECT_TRUE(tso_seen) << b["offloads"];
  if (two_channels_) {
    EXPECT_EQ(b["channels"]["rx"], 2);
  }
  EXPECT_EQ(b["qdisc"]["kind"], "tbf");
  EXPECT_EQ(b["qdisc"]["rate_bits_per_second"], 100000000);
  EXPECT_EQ(b["qdisc"]["overhead_bytes"], 24);
  EXPECT_TRUE(b["driver_stats"].contains("peer_ifindex")) << b["driver_stats"];
}

}  // namespace
}  // namespace nicbench
