// `nicbench inspect` run as a user would: text and JSON, a captured tree, errors and exit codes.
#include <stdlib.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench {
namespace {

using testing::RunNicbench;

const std::string kRoot = nicbench::testing::TestdataDir() + "/roots/vm-6.18";

TEST(InspectCliTest, LoopbackText) {
  auto result = RunNicbench({"inspect", "--iface", "lo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("host\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("interface lo (loopback)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("unknown (not present: loopback: no NIC)"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("  mtu:"), std::string::npos);
}

TEST(InspectCliTest, PeerJsonIsOnlyJson) {
  auto result = RunNicbench({"inspect", "--peer", "127.0.0.1", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = nlohmann::json::parse(result.out);  // throws (fails the test) on anything else
  EXPECT_EQ(doc["nic"]["interface"], "lo");
  EXPECT_EQ(doc["nic"]["loopback"], true);
  EXPECT_TRUE(doc["nic"]["driver"].is_null());
  EXPECT_NE(doc["nic"]["unknown"]["driver"].get<std::string>().find("loopback"), std::string::npos);
  EXPECT_TRUE(doc["host"]["kernel"].is_string());
  EXPECT_GT(doc["host"]["cpu_count"].get<int>(), 0);
}

TEST(InspectCliTest, CapturedTreeText) {
  auto result = RunNicbench({"inspect", "--root", kRoot, "--iface", "eth0"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("cpu model:"), std::string::npos);
  EXPECT_NE(result.out.find("AMD EPYC"), std::string::npos);
  EXPECT_NE(result.out.find("MSI-X"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("virtio2-input.0"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("unknown (not present: not in a captured tree)"), std::string::npos)
      << result.out;
}

TEST(InspectCliTest, CapturedTreeJson) {
  auto result = RunNicbench({"inspect", "--root", kRoot, "--iface", "eth0", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = nlohmann::json::parse(result.out);
  EXPECT_EQ(doc["host"]["cpu_model"], "AMD EPYC");
  EXPECT_EQ(doc["host"]["cpu_count"], 2);
  EXPECT_EQ(doc["nic"]["irq_mode"], "MSI-X");
  EXPECT_EQ(doc["nic"]["driver"], "virtio_net");
  EXPECT_EQ(doc["nic"]["mtu"], 1400);
  EXPECT_EQ(doc["nic"]["pci"]["vendor_id"], "1af4");
  EXPECT_TRUE(doc["nic"]["rings"].is_null());
}

// The build VM captured with the placement files (tests/testdata/roots/vm-6.18-place): the
// NIC's node is unknown (-1 on a VM), its local CPUs and each vector's effective CPU are shown.
TEST(InspectCliTest, CapturedTreeShowsPlacement) {
  const std::string root = testing::TestdataDir() + "/roots/vm-6.18-place";
  auto text = RunNicbench({"inspect", "--root", root, "--iface", "eth0"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("numa node:"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("unknown (not supported: numa_node -1"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("local cpus:"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" cpus 0-1 effective "), std::string::npos) << text.out;
  // A VM's vCPUs have no cpufreq: unknown, never a guessed frequency.
  EXPECT_NE(text.out.find("cpu frequency: unknown (not supported: no cpufreq"), std::string::npos)
      << text.out;
  auto shown = RunNicbench({"inspect", "--root", root, "--iface", "eth0", "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  auto doc = nlohmann::json::parse(shown.out);
  EXPECT_TRUE(doc["nic"]["numa_node"].is_null());
  EXPECT_TRUE(doc["host"]["cpu_frequencies"].is_null());
  EXPECT_EQ(doc["nic"]["local_cpus"], "0-1");
  ASSERT_EQ(doc["nic"]["irq_vectors"].size(), 3u);
  EXPECT_EQ(doc["nic"]["irq_vectors"][0]["affinity"], "0-1");
  EXPECT_FALSE(doc["nic"]["irq_vectors"][0]["effective_affinity"].get<std::string>().empty());
}

TEST(InspectCliTest, NoInterfaceListsThem) {
  auto result = RunNicbench({"inspect", "--root", kRoot, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = nlohmann::json::parse(result.out);
  EXPECT_EQ(doc["interfaces"], nlohmann::json::array({"eth0"}));
}

TEST(InspectCliTest, BadInterfaceIsEnvironmentError) {
  auto result = RunNicbench({"inspect", "--iface", "nbpr-none0"});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_NE(result.err.find("no interface 'nbpr-none0'"), std::string::npos) << result.err;
  auto shown = RunNicbench({"inspect", "--iface", "nbpr-none0", "--json"});
  EXPECT_EQ(shown.exit_code, 3);
  EXPECT_TRUE(nlohmann::json::parse(shown.out).contains("error"));
}

TEST(InspectCliTest, BadOptionsAreUsageErrors) {
  EXPECT_EQ(RunNicbench({"inspect", "--bogus"}).exit_code, 2);
  EXPECT_EQ(RunNicbench({"inspect", "--iface", "lo", "--peer", "127.0.0.1"}).exit_code, 2);
  EXPECT_EQ(RunNicbench({"inspect", "--root", "/nonexistent-nicbench-dir"}).exit_code, 2);
  EXPECT_EQ(RunNicbench({"inspect", "--peer", "not-an-address"}).exit_code, 3);
}

}  // namespace
}  // namespace nicbench

namespace nicbench {
namespace {

// `inspect --capture DIR` writes a tree that `--root DIR` reads back to the same facts.
TEST(InspectCapture, RoundTripsThroughRoot) {
  std::string iface = "lo";
  testing::ProcessResult list = testing::RunNicbench({"inspect", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  // The document must outlive the loop: a range-for over a member of a temporary would read
  // freed memory.
  const nlohmann::json listed = nlohmann::json::parse(list.out);
  for (const auto& name : listed["interfaces"]) {
    if (name != "lo") {
      iface = name.get<std::string>();
      break;
    }
  }
  char dir[] = "/tmp/nicbench-capture-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  testing::ProcessResult captured =
      testing::RunNicbench({"inspect", "--capture", dir, "--iface", iface, "--json"});
  ASSERT_EQ(captured.exit_code, 0) << captured.err;
  testing::ProcessResult back =
      testing::RunNicbench({"inspect", "--root", dir, "--iface", iface, "--json"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  testing::ProcessResult live = testing::RunNicbench({"inspect", "--iface", iface, "--json"});
  const nlohmann::json a = nlohmann::json::parse(live.out)["nic"];
  const nlohmann::json b = nlohmann::json::parse(back.out)["nic"];
  EXPECT_EQ(a["pci"], b["pci"]);
  EXPECT_EQ(a["irq_mode"], b["irq_mode"]);
  EXPECT_EQ(a["mtu"], b["mtu"]);
  EXPECT_EQ(nlohmann::json::parse(live.out)["host"]["kernel"],
            nlohmann::json::parse(back.out)["host"]["kernel"]);
  std::filesystem::remove_all(dir);
  testing::ProcessResult bad = testing::RunNicbench({"inspect", "--capture", "/proc/nope/x"});
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  EXPECT_NE(bad.err.find("--capture: cannot create"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace nicbench
