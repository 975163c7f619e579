// Other traffic beside a test (analysis/other_traffic.h, docs/compare.md): a second transfer
// through the client's namespace, or through another stand pair on the same host, marks the
// ends' packet-work figures as partly other traffic's, and a CPU hog alone, which moves no
// packets, does not. Root only.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "accuracy_stand.h"
#include "support/cpu_hogs.h"
#include "support/run_binary.h"

namespace nicbench::accuracy {
namespace {

using stand::Profile;

// The evidence of the cpu-cost finding, one line per end, or "" without the finding.
std::string CostEvidenceOf(const nlohmann::json& doc) {
  const nlohmann::json* cost = FindingOf(doc, "cpu-cost");
  if (cost == nullptr || !cost->contains("evidence")) return "";
  std::string text;
  for (const auto& line : (*cost)["evidence"]) text += line.get<std::string>() + "\n";
  return text;
}

constexpr char kPolluted[] = "the packet work is partly other traffic's";

TEST(OtherTrafficStand, AnotherTransferThroughTheHostPutsItsPacketWorkAside) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto st = UpStand("otr", Profile::kUnlimited);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  const stand::HostInfo& h1 = st->host(1);
  const stand::HostInfo& h2 = st->host(2);
  // The other traffic: an unlimited transfer from host 1 to a second server in host 2, running
  // for longer than the measured test, which is held to 300 Mbit/s.
  testing::BackgroundProcess other_serve(NicbenchIn(h2, {"serve", "-B", h2.address, "-p", "5202"}));
  ASSERT_TRUE(WaitForListener(h2, 5202));
  testing::BackgroundProcess other(NicbenchIn(h1, {"run", h2.address, "-p", "5202", "-t", "30"}));
  // Its first interval line: data has moved for a second.
  ASSERT_TRUE(other.WaitForOutput("sec")) << other.StderrSoFar();
  const PairRun r = RunNicbenchPair(*st, 2, 1, {"-t", "3", "-b", "300M"});
  other.Stop(2);
  other_serve.Stop();
  ASSERT_EQ(r.client.exit_code, 0) << r.client.err;
  const std::string evidence = CostEvidenceOf(r.doc);
  ASSERT_NE(evidence, "") << "no cpu-cost finding";
  EXPECT_NE(evidence.find(kPolluted), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("other traffic ("), std::string::npos) << evidence;
}

// Issue 27 item 2: a test without TSO beside another stand pair whose TSO sends 64 KB packets.
// The test's 1500-byte segments outnumber the neighbour's packets, so the host's packets left
// it unmarked; the host's bytes, most of them the neighbour's, mark it.
TEST(OtherTrafficStand, AGsoSizedNeighbourOnAnotherStandPutsThePacketWorkAside) {
  ACCURACY_SKIP_UNLESS_ROOT();
  stand::Offloads no_tso;
  no_tso.tso = stand::Toggle::kOff;
  auto st = UpStand("hbg", Profile::kUnlimited, no_tso);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  auto neighbour = UpStand("hbn", Profile::kUnlimited);  // TSO as veth has it: on
  ASSERT_TRUE(neighbour.has_value()) << neighbour.error().ToString();
  const stand::HostInfo& n1 = neighbour->host(1);
  const stand::HostInfo& n2 = neighbour->host(2);
  // 1 Gbit/s in 64 KB packets is about 2,000 packets a second and as many ACKs, against the
  // test's 8,600 segments and 4,300 ACKs at 100 Mbit/s: a fifth of the host's packets, but ten
  // times the test's bytes.
  testing::BackgroundProcess other_serve(NicbenchIn(n2, {"serve", "-B", n2.address, "-p", "5202"}));
  ASSERT_TRUE(WaitForListener(n2, 5202));
  testing::BackgroundProcess other(
      NicbenchIn(n1, {"run", n2.address, "-p", "5202", "-t", "30", "-b", "1G"}));
  ASSERT_TRUE(other.WaitForOutput("sec")) << other.StderrSoFar();
  const PairRun r = RunNicbenchPair(*st, 2, 1, {"-t", "3", "-b", "100M"});
  other.Stop(2);
  other_serve.Stop();
  ASSERT_EQ(r.client.exit_code, 0) << r.client.err;
  const std::string evidence = CostEvidenceOf(r.doc);
  ASSERT_NE(evidence, "") << "no cpu-cost finding";
  EXPECT_NE(evidence.find(kPolluted), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("of the IP bytes of this host's network namespaces"), std::string::npos)
      << evidence;
}

// A busy host is not a polluted one: the hog takes CPU but moves no packets.
TEST(OtherTrafficStand, ACpuHogAloneLeavesThePacketWorkTheTests) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto st = UpStand("oth", Profile::kUnlimited);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  testing::CpuHogs hogs;
  const PairRun r = RunNicbenchPair(*st, 2, 1, {"-t", "3", "-b", "300M"});
  ASSERT_EQ(r.client.exit_code, 0) << r.client.err;
  const std::string evidence = CostEvidenceOf(r.doc);
  ASSERT_NE(evidence, "") << "no cpu-cost finding";
  EXPECT_EQ(evidence.find(kPolluted), std::string::npos) << evidence;
}

}  // namespace
}  // namespace nicbench::accuracy
