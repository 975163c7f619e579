// StandManager against FakeCommandRunner: the orchestration (order, fallbacks, cleanup on
// failure, reuse, leftovers) without root. The real kernel side is in tests/integration/netns.
#include "stand/stand.h"

#include <stdlib.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "stand/fake_command_runner.h"
#include "stand/fake_netns_processes.h"

namespace nicbench::stand {
namespace {

constexpr const char kUnknownKind[] = "Error: Specified qdisc kind is unknown.\n";

class StandManagerTest : public ::testing::Test {
 protected:
  StandManagerTest() {
    // This kernel's answer: tbf and htb exist, netem does not.
    MissingQdisc("netem");
  }
  ~StandManagerTest() override { std::filesystem::remove_all(dir_); }

  void MissingQdisc(const std::string& kind) {
    runner_.Answer({"tc", "-n", "t-h1", "qdisc", "add", "dev", "lo", "root", "handle", "1:", kind},
                   {2, "", kUnknownKind});
  }
  void Namespaces(const std::string& json) {
    runner_.Answer({"ip", "-j", "netns", "list"}, {0, json, ""});
  }
  static StandSpec Spec() {
    StandSpec spec;
    spec.name = "t";
    spec.profile = Profile::k100BaseTx;
    return spec;
  }

  static std::string MakeTempDir() {
    char pattern[] = "/tmp/nb-stand-mgr-XXXXXX";
    return mkdtemp(pattern);
  }

  std::string dir_ = MakeTempDir();  // declared before manager_, which keeps a copy
  FakeCommandRunner runner_;
  FakeNetnsProcesses processes_;
  StandManager manager_{runner_, dir_, processes_};
};

TEST_F(StandManagerTest, UpShapesWithTbfAndRemembersTheStand) {
  auto info = manager_.Up(Spec());
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->shaper, Shaper::kTbf);
  EXPECT_EQ(info->rate_bits_per_second, 100'000'000u);
  ASSERT_EQ(info->hosts.size(), 2u);
  EXPECT_EQ(info->hosts[1].netns, "t-h2");
  EXPECT_EQ(info->hosts[1].interface, "t-h2-e0");
  EXPECT_EQ(info->hosts[1].address, "198.18.0.2");
  EXPECT_EQ(info->qdiscs, (QdiscSupport{true, true, false}));
  EXPECT_EQ(runner_.CountWithPrefix({"tc", "-n", "t-h2", "qdisc", "add", "dev", "t-h2-e0", "root",
                                     "handle", "1:", "tbf"}),
            1u);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/stand-t.json"));
  auto listed = manager_.List();
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].spec, Spec());
  EXPECT_FALSE((*listed)[0].complete);  // the fake lists no namespaces
}

TEST_F(StandManagerTest, FallsBackToHtbWithoutTbf) {
  MissingQdisc("tbf");
  auto info = manager_.Up(Spec());
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->shaper, Shaper::kHtb);
  EXPECT_EQ(runner_.CountWithPrefix({"tc", "-n", "t-h1", "class", "add", "dev", "t-h1-e0"}), 1u);
}

TEST_F(StandManagerTest, NoShaperMeansAClearErrorAndNothingLeft) {
  MissingQdisc("tbf");
  MissingQdisc("htb");
  Namespaces(R"([{"name":"t-h1"},{"name":"t-h2"},{"name":"t2-h1"},{"name":"other"}])");
  auto info = manager_.Up(Spec());
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().message.find("needs the tbf or htb qdisc"), std::string::npos);
  EXPECT_TRUE(runner_.Ran({"ip", "netns", "del", "t-h1"}));
  EXPECT_TRUE(runner_.Ran({"ip", "netns", "del", "t-h2"}));
  EXPECT_FALSE(runner_.Ran({"ip", "netns", "del", "t2-h1"}));
  EXPECT_FALSE(runner_.Ran({"ip", "netns", "del", "other"}));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/stand-t.json"));
}

TEST_F(StandManagerTest, DelayNeedsNetem) {
  StandSpec spec = Spec();
  spec.delay_ms = 10;
  auto info = manager_.Up(spec);
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().message.find("--delay needs the netem qdisc"), std::string::npos);
}

TEST_F(StandManagerTest, QueueKindTheKernelLacksIsRefusedBeforeAnythingIsMade) {
  // This kernel's answer: tbf, htb, pfifo and bfifo only.
  for (std::string_view kind : kListedQdiscKinds) {
    if (kind == "tbf" || kind == "htb" || kind == "pfifo" || kind == "bfifo") continue;
    runner_.Answer(ScratchQdiscProbeCommand(kind), {2, "", kUnknownKind});
  }
  StandSpec spec = Spec();
  spec.queue = QueueKind::kFqCodel;
  auto info = manager_.Up(spec);
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().message,
            "--queue fq_codel: this kernel has no fq_codel qdisc (sch_fq_codel not available); it "
            "has: tbf, htb, pfifo, bfifo");
  EXPECT_EQ(runner_.CountWithPrefix({"ip", "netns", "add"}), 0u);
  EXPECT_EQ(runner_.CountWithPrefix({"ip", "netns", "del"}), 0u);  // nor an old one taken down
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/stand-t.json"));
}

TEST_F(StandManagerTest, QueueKindProbeThatFailsOtherwiseIsNamed) {
  runner_.Answer({"unshare"}, {1, "", "unshare: unshare failed: Operation not permitted\n"});
  StandSpec spec = Spec();
  spec.queue = QueueKind::kCake;
  auto info = manager_.Up(spec);
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().message.find("'unshare --net tc qdisc add dev lo root handle 1: cake' "
                                      "failed: unshare: unshare failed"),
            std::string::npos)
      << info.error().message;
  EXPECT_EQ(runner_.CountWithPrefix({"ip", "netns", "add"}), 0u);
}

TEST_F(StandManagerTest, QueueKindTheKernelHasHangsUnderTheShaper) {
  StandSpec spec = Spec();
  spec.queue = QueueKind::kFqCodel;
  auto info = manager_.Up(spec);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_TRUE(runner_.Ran(ScratchQdiscProbeCommand("fq_codel")));
  EXPECT_TRUE(runner_.Ran({"tc", "-n", "t-h2", "qdisc", "add", "dev", "t-h2-e0", "parent", "1:1",
                           "handle", "10:", "fq_codel"}));
  EXPECT_NE(FormatStandLine(*info).find("queue fq_codel"), std::string::npos);
  auto listed = manager_.List();
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].spec.queue, QueueKind::kFqCodel);  // kept in the state file
}

TEST_F(StandManagerTest, AFailingCommandIsNamedWithItsStderr) {
  runner_.Answer({"ip", "link", "add"}, {2, "", "RTNETLINK answers: File exists\n"});
  auto info = manager_.Up(Spec());
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().message.find("'ip link add t-h1-e0 netns t-h1 type veth"),
            std::string::npos);
  EXPECT_NE(info.error().message.find("File exists"), std::string::npos);
}

TEST_F(StandManagerTest, SecondIdenticalUpKeepsTheStand) {
  ASSERT_TRUE(manager_.Up(Spec()));
  Namespaces(R"([{"name":"t-h1"},{"name":"t-h2"}])");
  runner_.ClearLog();
  auto again = manager_.Up(Spec());
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->reused);
  EXPECT_EQ(runner_.CountWithPrefix({"ip", "netns", "add"}), 0u);
  EXPECT_EQ(runner_.CountWithPrefix({"ip", "netns", "del"}), 0u);
}

TEST_F(StandManagerTest, UpWithAnotherSpecRebuilds) {
  ASSERT_TRUE(manager_.Up(Spec()));
  Namespaces(R"([{"name":"t-h1"},{"name":"t-h2"}])");
  runner_.ClearLog();
  StandSpec faster = Spec();
  faster.profile = Profile::k1000BaseT;
  auto again = manager_.Up(faster);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->reused);
  EXPECT_TRUE(runner_.Ran({"ip", "netns", "del", "t-h1"}));
  EXPECT_TRUE(runner_.Ran({"ip", "netns", "add", "t-h1"}));
  EXPECT_EQ(again->rate_bits_per_second, 1'000'000'000u);
}

TEST_F(StandManagerTest, TwoStandsGetDistinctSubnets) {
  ASSERT_TRUE(manager_.Up(Spec()));
  StandSpec other = Spec();
  other.name = "u";
  auto info = manager_.Up(other);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->subnet_index, 1);
  EXPECT_EQ(info->hosts[0].address, "198.18.1.1");
}

TEST_F(StandManagerTest, DownRemovesLeftoversByPrefixOnly) {
  Namespaces(R"([{"name":"t-h1"},{"name":"t-sw"},{"name":"t2-h1"},{"name":"t-x"}])");
  runner_.Answer({"ip", "-j", "link", "show"},
                 {0,
                  R"([{"ifname":"lo"},{"ifname":"t-h3-e0"},{"ifname":"t-br"},)"
                  R"({"ifname":"t2-h1-e0"},{"ifname":"t-other"}])",
                  ""});
  ASSERT_TRUE(manager_.Down("t"));
  EXPECT_TRUE(runner_.Ran({"ip", "netns", "del", "t-h1"}));
  EXPECT_TRUE(runner_.Ran({"ip", "netns", "del", "t-sw"}));
  EXPECT_FALSE(runner_.Ran({"ip", "netns", "del", "t2-h1"}));
  EXPECT_FALSE(runner_.Ran({"ip", "netns", "del", "t-x"}));
  EXPECT_TRUE(runner_.Ran({"ip", "link", "del", "dev", "t-h3-e0"}));
  EXPECT_TRUE(runner_.Ran({"ip", "link", "del", "dev", "t-br"}));
  EXPECT_FALSE(runner_.Ran({"ip", "link", "del", "dev", "t2-h1-e0"}));
  EXPECT_FALSE(runner_.Ran({"ip", "link", "del", "dev", "t-other"}));
}

TEST_F(StandManagerTest, DownOfNothingIsFine) {
  EXPECT_TRUE(manager_.Down("t"));
  EXPECT_FALSE(manager_.Down("Bad-Name"));
}

// Issue 27 item 12: deleting a namespace with a server inside left the server running in a
// namespace without a name, and down said "is down".
TEST_F(StandManagerTest, DownRefusesWhileProcessesRunInsideAndNamesThem) {
  Namespaces(R"([{"name":"t-h1"},{"name":"t-h2"}])");
  processes_.SetRunning({{4242, "t-h2", 7, "iperf3 -s"}, {4300, "u-h1", 8, "sleep 1"}});
  auto down = manager_.Down("t");
  ASSERT_FALSE(down);
  EXPECT_EQ(down.error().kind, ErrorKind::kBusy);
  EXPECT_NE(down.error().message.find("1 process runs inside it: pid 4242 in t-h2 (iperf3 -s)"),
            std::string::npos)
      << down.error().message;
  EXPECT_EQ(down.error().message.find("4300"), std::string::npos);
  EXPECT_EQ(runner_.CountWithPrefix({"ip", "netns", "del"}), 0u);
  EXPECT_TRUE(processes_.stopped().empty());
}

TEST_F(StandManagerTest, DownStopsProcessesFirstWhenAsked) {
  Namespaces(R"([{"name":"t-h1"},{"name":"t-h2"}])");
  processes_.SetRunning({{4242, "t-h2", 7, "iperf3 -s"}});
  auto down = manager_.Down("t", DownMode::kStopProcesses);
  ASSERT_TRUE(down) << down.error().message;
  ASSERT_EQ(down->size(), 1u);
  EXPECT_EQ((*down)[0].pid, 4242);
  EXPECT_EQ(processes_.stopped().size(), 1u);
  EXPECT_TRUE(runner_.Ran({"ip", "netns", "del", "t-h2"}));
}

TEST_F(StandManagerTest, DownFailsAndKeepsTheNamesWhenAProcessSurvives) {
  Namespaces(R"([{"name":"t-h1"},{"name":"t-h2"}])");
  processes_.SetRunning({{4242, "t-h2", 7, "stuck"}});
  processes_.SetUnkillable({4242});
  auto down = manager_.Down("t", DownMode::kStopProcesses);
  ASSERT_FALSE(down);
  EXPECT_NE(down.error().message.find("after SIGKILL"), std::string::npos);
  EXPECT_NE(down.error().message.find("pid 4242 in t-h2 (stuck)"), std::string::npos);
  EXPECT_EQ(runner_.CountWithPrefix({"ip", "netns", "del"}), 0u);
}

TEST_F(StandManagerTest, RebuildRefusesWhileProcessesRunInside) {
  ASSERT_TRUE(manager_.Up(Spec()));
  Namespaces(R"([{"name":"t-h1"},{"name":"t-h2"}])");
  processes_.SetRunning({{4242, "t-h1", 7, "nicbench serve"}});
  StandSpec faster = Spec();
  faster.profile = Profile::k1000BaseT;
  auto again = manager_.Up(faster);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, ErrorKind::kBusy);
  EXPECT_EQ(runner_.CountWithPrefix({"ip", "netns", "del"}), 0u);
}

TEST_F(StandManagerTest, ListRediscoversAStandWithoutStateFile) {
  Namespaces(R"([{"name":"w-h1"},{"name":"w-h2"}])");
  runner_.Answer({"ip", "-n", "w-h1", "-j", "-4", "addr"},
                 {0, R"([{"ifname":"w-h1-e0","addr_info":[{"local":"198.18.9.1"}]}])", ""});
  runner_.Answer({"tc", "-n", "w-h1", "-j", "qdisc"},
                 {0, R"([{"kind":"tbf","root":true,"options":{"rate":125000000}}])", ""});
  auto listed = manager_.List();
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  const StandInfo& info = (*listed)[0];
  EXPECT_FALSE(info.from_state);
  EXPECT_EQ(info.spec.name, "w");
  EXPECT_EQ(info.spec.hosts, 2);
  EXPECT_EQ(info.spec.profile, Profile::k1000BaseT);
  EXPECT_EQ(info.hosts[0].address, "198.18.9.1");
  EXPECT_EQ(info.subnet_index, 9);
  EXPECT_NE(FormatStandLine(info).find("rediscovered"), std::string::npos);
}

TEST(StandFormatTest, OneLinePerStandSaysEverything) {
  StandState state;
  state.spec.name = "nb";
  state.spec.profile = Profile::k100BaseTx;
  state.spec.offloads.tso = Toggle::kOff;
  state.shaper = Shaper::kTbf;
  std::string line = FormatStandLine(InfoFromState(state));
  EXPECT_EQ(line.find('\n'), std::string::npos);
  for (const char* part : {"nb ", "100baseTX", "100.00 Mbits/sec", "tbf", "h1=198.18.0.1/24",
                           "h2=198.18.0.2/24", "tso=off", "gso=default"}) {
    EXPECT_NE(line.find(part), std::string::npos) << part << " in " << line;
  }
}

}  // namespace
}  // namespace nicbench::stand
