// NIC facts of a real veth pair inside a network namespace made by the test: driver, link,
// offloads toggled with `ethtool -K`, what veth does not support, a tbf root qdisc with its rate,
// and the route lookup. Root only; skipped otherwise.
//
// The facts are collected in a forked child that enters the namespace and mounts its own
// sysfs (as `ip netns exec` does), since /sys/class/net shows the namespace of the mount. The
// child sends the NicFacts back as JSON (record/json.h).
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/collect_facts.h"
#include "record/json.h"
#include "support/run_binary.h"

namespace nicbench::probes {
namespace {

using nicbench::testing::IsRoot;
using nicbench::testing::RunProcess;

class VethNamespace : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!IsRoot()) GTEST_SKIP() << "netns tests need root (network namespaces, veth, tc)";
    ns_ = "nbpr-" + std::to_string(::getpid());
    RunProcess({"ip", "netns", "del", ns_});  // a leftover of a killed run
    ASSERT_EQ(Ip({"netns", "add", ns_}), 0);
    created_ = true;
    ASSERT_EQ(Ip({"-n", ns_, "link", "add", "nbprA", "type", "veth", "peer", "name", "nbprB"}), 0);
    ASSERT_EQ(Ip({"-n", ns_, "addr", "add", "198.18.7.1/24", "dev", "nbprA"}), 0);
    ASSERT_EQ(Ip({"-n", ns_, "addr", "add", "198.18.8.2/24", "dev", "nbprB"}), 0);
    ASSERT_EQ(Ip({"-n", ns_, "link", "set", "nbprA", "up"}), 0);
    ASSERT_EQ(Ip({"-n", ns_, "link", "set", "nbprB", "up"}), 0);
  }
  void TearDown() override {
    if (created_) RunProcess({"ip", "netns", "del", ns_});
  }

  int Ip(std::vector<std::string> args) {
    args.insert(args.begin(), "ip");
    auto result = RunProcess(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.exit_code;
  }
  int InNs(std::vector<std::string> args) {
    args.insert(args.begin(), {"ip", "netns", "exec", ns_});
    auto result = RunProcess(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.exit_code;
  }

  // Runs CollectNicFacts(iface) and InterfaceForPeer inside the namespace.
  // `route` receives "<route to 198.18.7.9> <route to 198.18.8.2>" (no packet is sent).
  record::NicFacts FactsInNamespace(const std::string& iface, std::string* route = nullptr) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      ::_exit(ChildCollect(iface, fds[1]));
    }
    ::close(fds[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
      text.append(buffer, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child status " << status << ": " << text;
    auto doc = nlohmann::json::parse(text, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << text;
    if (doc.is_discarded()) return {};
    if (route != nullptr) *route = doc.value("route", "");
    auto facts = record::NicFactsFromJson(doc["nic"]);
    EXPECT_TRUE(facts) << facts.error().ToString();
    return facts ? *facts : record::NicFacts{};
  }

  int ChildCollect(const std::string& iface, int out) {
    std::string path = "/run/netns/" + ns_;
    int nsfd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (nsfd < 0 || ::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_SLAVE | MS_REC, nullptr) != 0 ||
        ::setns(nsfd, CLONE_NEWNET) != 0 || ::umount2("/sys", MNT_DETACH) != 0 ||
        ::mount("sysfs", "/sys", "sysfs", 0, nullptr) != 0) {
      return 10;
    }
    DirFileSource files("/");
    auto facts = CollectNicFacts(iface, files);
    if (!facts) return 11;
    nlohmann::json doc;
    doc["nic"] = *facts;
    doc["route"] = InterfaceForPeer("198.18.7.9").value_or("error") + " " +
                   InterfaceForPeer("198.18.8.2").value_or("error");
    std::string text = doc.dump();
    return ::write(out, text.data(), text.size()) == static_cast<ssize_t>(text.size()) ? 0 : 12;
  }

  static const record::OffloadState* Offload(const record::NicFacts& facts,
                                             const std::string& name) {
    if (!facts.offloads.known()) return nullptr;
    for (const auto& o : facts.offloads.value()) {
      if (o.name == name) return &o;
    }
    return nullptr;
  }

  std::string ns_;
  bool created_ = false;
};

TEST_F(VethNamespace, DriverLinkAndWhatVethLacks) {
  std::string route;
  record::NicFacts facts = FactsInNamespace("nbprA", &route);
  EXPECT_EQ(facts.interface, "nbprA");
  EXPECT_FALSE(facts.loopback);
  EXPECT_EQ(facts.driver.value_or(""), "veth");
  EXPECT_TRUE(facts.driver_version.known());
  EXPECT_EQ(facts.speed_mbps.value_or(0), 10000u);  // veth reports 10G full duplex
  EXPECT_EQ(facts.duplex.value_or(""), "full");
  EXPECT_EQ(facts.mtu.value_or(0), 1500u);
  // veth has no ring or coalescing operations: EOPNOTSUPP, reported as not supported.
  ASSERT_FALSE(facts.rings.known());
  EXPECT_EQ(facts.rings.why(), record::Missing::kNotSupported);
  ASSERT_FALSE(facts.coalescing.known());
  EXPECT_EQ(facts.coalescing.why(), record::Missing::kNotSupported);
  // It has channels (one rx/tx queue of a possible two here) and driver statistics.
  ASSERT_TRUE(facts.channels.known());
  EXPECT_EQ(facts.channels.value().rx, 1u);
  EXPECT_GE(facts.channels.value().rx_max, 1u);
  ASSERT_TRUE(facts.driver_stats.known());
  EXPECT_EQ(facts.driver_stats.value().count("peer_ifindex"), 1u);
  // Not a PCI device: no bus address, no IRQs.
  EXPECT_FALSE(facts.bus_info.known());
  EXPECT_FALSE(facts.pci.known());
  EXPECT_EQ(facts.irq_mode.why(), record::Missing::kAbsent);
  // 198.18.7.9 is on nbprA's subnet; 198.18.8.2 is this namespace's own address (loopback).
  EXPECT_EQ(route, "nbprA lo");
}

TEST_F(VethNamespace, OffloadTogglesShowUp) {
  ASSERT_EQ(InNs({"ethtool", "-K", "nbprA", "tso", "off", "gro", "on"}), 0);
  record::NicFacts off = FactsInNamespace("nbprA");
  ASSERT_NE(Offload(off, "tcp-segmentation-offload"), nullptr);
  EXPECT_FALSE(Offload(off, "tcp-segmentation-offload")->on);
  EXPECT_FALSE(Offload(off, "tcp-segmentation-offload")->fixed);
  EXPECT_TRUE(Offload(off, "generic-receive-offload")->on);
  ASSERT_EQ(InNs({"ethtool", "-K", "nbprA", "tso", "on", "gro", "off"}), 0);
  record::NicFacts on = FactsInNamespace("nbprA");
  EXPECT_TRUE(Offload(on, "tcp-segmentation-offload")->on);
  EXPECT_FALSE(Offload(on, "generic-receive-offload")->on);
  ASSERT_NE(Offload(on, "large-receive-offload"), nullptr);
  EXPECT_TRUE(Offload(on, "large-receive-offload")->fixed);
}

TEST_F(VethNamespace, TbfQdiscWithRate) {
  record::NicFacts plain = FactsInNamespace("nbprA");
  ASSERT_TRUE(plain.qdisc.known()) << plain.qdisc.detail();
  EXPECT_NE(plain.qdisc.value().kind, "tbf");
  ASSERT_EQ(InNs({"tc", "qdisc", "add", "dev", "nbprA", "root", "tbf", "rate", "100mbit", "burst",
                  "32k", "latency", "50ms"}),
            0);
  record::NicFacts shaped = FactsInNamespace("nbprA");
  ASSERT_TRUE(shaped.qdisc.known()) << shaped.qdisc.detail();
  EXPECT_EQ(shaped.qdisc.value().kind, "tbf");
  EXPECT_EQ(shaped.qdisc.value().rate_bits_per_second, 100000000u);
  ASSERT_EQ(InNs({"tc", "qdisc", "replace", "dev", "nbprA", "root", "handle", "1:", "htb",
                  "default", "10"}),
            0);
  ASSERT_EQ(InNs({"tc", "class", "add", "dev", "nbprA", "parent", "1:", "classid", "1:10", "htb",
                  "rate", "250mbit"}),
            0);
  record::NicFacts htb = FactsInNamespace("nbprA");
  ASSERT_TRUE(htb.qdisc.known());
  EXPECT_EQ(htb.qdisc.value().kind, "htb");
  EXPECT_EQ(htb.qdisc.value().rate_bits_per_second, 250000000u);
}

}  // namespace
}  // namespace nicbench::probes
