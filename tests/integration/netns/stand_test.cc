// The stand on the real kernel: namespaces, veth, tbf, ethtool. Needs root; every stand is a
// ScopedStand (or taken down explicitly), so a failing test leaves nothing behind. Each test
// uses its own stand name so tests can run in parallel.
#include "stand/stand.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace nicbench::stand {
namespace {

#define SKIP_UNLESS_ROOT()                                                                 \
  if (!HaveNetnsPrivileges())                                                              \
  GTEST_SKIP() << "netns tests need root (CAP_NET_ADMIN/CAP_SYS_ADMIN) to create network " \
                  "namespaces; run ctest -L netns as root"

bool NamespaceExists(const std::string& netns) {
  return std::filesystem::exists("/run/netns/" + netns);
}

std::vector<std::string> OurNamespaces(const std::string& stand) {
  std::vector<std::string> found;
  if (!std::filesystem::exists("/run/netns")) return found;
  for (const auto& entry : std::filesystem::directory_iterator("/run/netns")) {
    std::string name = entry.path().filename().string();
    if (CarriesStandPrefix(stand, name)) found.push_back(name);
  }
  return found;
}

// A socket created inside `netns`: a socket belongs to the namespace of the thread that
// created it, so a short-lived thread enters the namespace, makes it and leaves.
int SocketIn(const std::string& netns) {
  int result = -1;
  std::thread worker([&] {
    int ns_fd = open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
    if (ns_fd < 0) return;
    if (setns(ns_fd, CLONE_NEWNET) == 0) result = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    close(ns_fd);
  });
  worker.join();
  return result;
}

// Connects from host `from` to a listener on host `to`'s address and moves a message across;
// returns the bytes that arrived.
std::string TcpAcross(const HostInfo& from, const HostInfo& to) {
  int listener = SocketIn(to.netns);
  int client = SocketIn(from.netns);
  EXPECT_GE(listener, 0);
  EXPECT_GE(client, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  inet_pton(AF_INET, to.address.c_str(), &addr.sin_addr);
  socklen_t len = sizeof addr;
  std::string received;
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      listen(listener, 1) == 0 &&
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0 &&
      connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    int server = accept(listener, nullptr, nullptr);
    const std::string message = "across the stand";
    EXPECT_EQ(send(client, message.data(), message.size(), 0),
              static_cast<ssize_t>(message.size()));
    shutdown(client, SHUT_WR);
    char buffer[64];
    ssize_t n;
    while ((n = recv(server, buffer, sizeof buffer, 0)) > 0) received.append(buffer, n);
    close(server);
  } else {
    ADD_FAILURE() << "TCP from " << from.netns << " to " << to.address << ": "
                  << std::strerror(errno);
  }
  close(listener);
  close(client);
  return received;
}

std::string RunOk(const std::vector<std::string>& argv) {
  auto result = nicbench::testing::RunProcess(argv);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

TEST(StandNetnsTest, TwoHosts100BaseTx) {
  SKIP_UNLESS_ROOT();
  StandSpec spec;
  spec.name = "nbt1";
  spec.profile = Profile::k100BaseTx;
  auto stand = ScopedStand::Create(spec);
  ASSERT_TRUE(stand) << stand.error().ToString();
  const StandInfo& info = stand->info();
  ASSERT_EQ(info.hosts.size(), 2u);
  EXPECT_TRUE(info.switch_netns.empty());
  for (const auto& host : info.hosts) {
    EXPECT_TRUE(NamespaceExists(host.netns)) << host.netns;
    std::string addrs =
        RunOk({"ip", "-n", host.netns, "-4", "-o", "addr", "show", "dev", host.interface});
    EXPECT_NE(addrs.find(host.address + "/24"), std::string::npos) << addrs;
    EXPECT_NE(RunOk({"ip", "-n", host.netns, "-o", "link", "show", "lo"}).find("UP"),
              std::string::npos);
    auto qdisc = ReadQdisc(host.netns, host.interface);
    ASSERT_TRUE(qdisc) << qdisc.error().ToString();
    EXPECT_EQ(qdisc->kind, "tbf");
    EXPECT_EQ(qdisc->rate_bits_per_second, 100'000'000u);
    EXPECT_EQ(qdisc->overhead_bytes, kEthernetOverheadBytes);
  }
  EXPECT_EQ(TcpAcross(stand->host(1), stand->host(2)), "across the stand");
  EXPECT_EQ(TcpAcross(stand->host(2), stand->host(1)), "across the stand");
}

TEST(StandNetnsTest, TsoOffIsSeenByEthtool) {
  SKIP_UNLESS_ROOT();
  StandSpec spec;
  spec.name = "nbt2";
  spec.profile = Profile::kUnlimited;
  spec.offloads.tso = Toggle::kOff;
  spec.offloads.gro = Toggle::kOn;
  spec.mtu = 9000;
  auto stand = ScopedStand::Create(spec);
  ASSERT_TRUE(stand) << stand.error().ToString();
  ProcessRunner runner;
  for (const auto& host : stand->info().hosts) {
    auto flags = ReadOffloads(runner, host.netns, host.interface);
    ASSERT_TRUE(flags) << flags.error().ToString();
    EXPECT_EQ(flags->tso, false) << host.netns;
    EXPECT_EQ(flags->gro, true) << host.netns;
    EXPECT_NE(
        RunOk({"ip", "-n", host.netns, "-o", "link", "show", host.interface}).find("mtu 9000"),
        std::string::npos);
    EXPECT_EQ(ReadQdisc(host.netns, host.interface).value().kind, "noqueue");  // unlimited
  }
  EXPECT_EQ(TcpAcross(stand->host(1), stand->host(2)), "across the stand");
}

TEST(StandNetnsTest, UpTwiceKeepsThenRebuildsOnChange) {
  SKIP_UNLESS_ROOT();
  ProcessRunner runner;
  StandManager manager(runner, kDefaultStateDir);
  StandSpec spec;
  spec.name = "nbt3";
  spec.profile = Profile::k100BaseTx;
  auto first = ScopedStand::Create(spec);
  ASSERT_TRUE(first) << first.error().ToString();
  auto second = manager.Up(spec);
  ASSERT_TRUE(second) << second.error().ToString();
  EXPECT_TRUE(second->reused);
  spec.profile = Profile::k1000BaseT;
  auto third = manager.Up(spec);
  ASSERT_TRUE(third) << third.error().ToString();
  EXPECT_FALSE(third->reused);
  EXPECT_EQ(ReadQdisc("nbt3-h2", "nbt3-h2-e0").value().rate_bits_per_second, 1'000'000'000u);
  auto listed = manager.List();
  ASSERT_TRUE(listed);
  auto it = std::find_if(listed->begin(), listed->end(),
                         [](const StandInfo& s) { return s.spec.name == "nbt3"; });
  ASSERT_NE(it, listed->end());
  EXPECT_EQ(it->spec.profile, Profile::k1000BaseT);
  EXPECT_TRUE(it->complete);
}

TEST(StandNetnsTest, DownRemovesEverything) {
  SKIP_UNLESS_ROOT();
  StandSpec spec;
  spec.name = "nbt4";
  spec.hosts = 3;
  ProcessRunner runner;
  StandManager manager(runner, kDefaultStateDir);
  auto up = manager.Up(spec);
  ASSERT_TRUE(up) << up.error().ToString();
  EXPECT_EQ(OurNamespaces("nbt4").size(), 4u);
  ASSERT_TRUE(manager.Down("nbt4"));
  EXPECT_TRUE(OurNamespaces("nbt4").empty());
  EXPECT_FALSE(std::filesystem::exists(std::string(kDefaultStateDir) + "/stand-nbt4.json"));
  EXPECT_TRUE(manager.Down("nbt4"));  // again: nothing to do, no error
}

TEST(StandNetnsTest, DownCleansUpACrashedRun) {
  SKIP_UNLESS_ROOT();
  // What a run killed half-way could leave: a namespace, and a veth pair in the root namespace.
  RunOk({"ip", "netns", "add", "nbt5-h1"});
  RunOk({"ip", "netns", "add", "nbt5-sw"});
  RunOk({"ip", "link", "add", "nbt5-h2-e0", "type", "veth", "peer", "name", "nbt5-sw-p2"});
  ASSERT_TRUE(Down("nbt5"));
  EXPECT_TRUE(OurNamespaces("nbt5").empty());
  std::string links = RunOk({"ip", "-o", "link", "show"});
  EXPECT_EQ(links.find("nbt5-"), std::string::npos) << links;
}

TEST(StandNetnsTest, ThreeHostsMeetOnASwitch) {
  SKIP_UNLESS_ROOT();
  StandSpec spec;
  spec.name = "nbt6";
  spec.hosts = 3;
  spec.profile = Profile::k1000BaseT;
  auto stand = ScopedStand::Create(spec);
  ASSERT_TRUE(stand) << stand.error().ToString();
  EXPECT_EQ(stand->info().switch_netns, "nbt6-sw");
  std::string bridge = RunOk({"ip", "-n", "nbt6-sw", "-o", "link", "show", "master", "nbt6-br"});
  for (int host = 1; host <= 3; ++host) {
    EXPECT_NE(bridge.find("nbt6-sw-p" + std::to_string(host)), std::string::npos) << bridge;
    auto port = ReadQdisc("nbt6-sw", SwitchPort("nbt6", host));
    ASSERT_TRUE(port);
    EXPECT_EQ(port->rate_bits_per_second, 1'000'000'000u);  // switch -> host direction shaped
  }
  EXPECT_EQ(TcpAcross(stand->host(1), stand->host(3)), "across the stand");
  EXPECT_EQ(TcpAcross(stand->host(3), stand->host(2)), "across the stand");
}

TEST(StandNetnsTest, DelayWithoutNetemFailsClearlyAndLeavesNothing) {
  SKIP_UNLESS_ROOT();
  StandSpec spec;
  spec.name = "nbt7";
  spec.delay_ms = 5;
  auto up = Up(spec);
  if (up) {
    ASSERT_TRUE(Down("nbt7"));
    GTEST_SKIP() << "this kernel has netem; the missing-netem path cannot be shown here";
  }
  EXPECT_NE(up.error().message.find("netem"), std::string::npos) << up.error().message;
  EXPECT_TRUE(OurNamespaces("nbt7").empty());
}

// The kernel's own answer decides what is expected: this one has no fq_codel, so `up` refuses
// before making anything; a kernel with it builds the stand with fq_codel under tbf.
TEST(StandNetnsTest, QueueKindTheKernelLacksIsRefusedAndLeavesNothing) {
  SKIP_UNLESS_ROOT();
  const nicbench::testing::ProcessResult probe = nicbench::testing::RunProcess(
      {"unshare", "--net", "tc", "qdisc", "add", "dev", "lo", "root", "fq_codel"});
  const nicbench::testing::ProcessResult up = nicbench::testing::RunNicbench(
      {"stand", "up", "--name", "smq", "--profile", "100baseTX", "--queue", "fq_codel"});
  if (probe.exit_code == 0) {
    EXPECT_EQ(up.exit_code, 0) << up.err;
    const nicbench::testing::ProcessResult shown =
        nicbench::testing::RunProcess({"tc", "-n", "smq-h1", "qdisc", "show", "dev", "smq-h1-e0"});
    EXPECT_NE(shown.out.find("fq_codel"), std::string::npos) << shown.out;
    ASSERT_TRUE(Down("smq"));
    return;
  }
  EXPECT_EQ(up.exit_code, 3) << up.err;
  EXPECT_NE(up.err.find("--queue fq_codel: this kernel has no fq_codel qdisc (sch_fq_codel not "
                        "available); it has: "),
            std::string::npos)
      << up.err;
  EXPECT_NE(up.err.find("tbf"), std::string::npos) << up.err;
  EXPECT_TRUE(OurNamespaces("smq").empty());
}

}  // namespace
}  // namespace nicbench::stand
