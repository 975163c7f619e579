// Other traffic beside a test (analysis/other_traffic.h, docs/compare.md): a second transfer
// through the client's namespace, or through another stand pair on the same host, marks the
// ends' packet-work figures as partly other traffic's, and a CPU hog alone, which moves no
// packets, does not. Root only.
#include <memory>
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

// The other traffic: a transfer from `from` to a second server on `to` (port 5202) for 30 s,
// longer than the measured test, with `args` added to its `run`. `error` is empty once its
// first interval line shows data moved for a second.
struct OtherTransfer {
  OtherTransfer(const stand::HostInfo& from, const stand::HostInfo& to,
                const std::vector<std::string>& args)
      : serve(NicbenchIn(to, {"serve", "-B", to.address, "-p", "5202"})) {
    if (!WaitForListener(to, 5202)) {
      error = "the other server did not listen: " + serve.StderrSoFar();
      return;
    }
    std::vector<std::string> command = {"run", to.address, "-p", "5202", "-t", "30"};
    command.insert(command.end(), args.begin(), args.end());
    run = std::make_unique<testing::BackgroundProcess>(NicbenchIn(from, command));
    if (!run->WaitForOutput("sec")) error = run->StderrSoFar();
  }
  void Stop() {
    if (run) run->Stop(2);
    serve.Stop();
  }

  testing::BackgroundProcess serve;
  std::unique_ptr<testing::BackgroundProcess> run;
  std::string error;
};

TEST(OtherTrafficStand, AnotherTransferThroughTheHostPutsItsPacketWorkAside) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto st = UpStand("otr", Profile::kUnlimited);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  const stand::HostInfo& h1 = st->host(1);
  const stand::HostInfo& h2 = st->host(2);
  // The other traffic is unlimited, through the same hosts; the measured test is held to
  // 300 Mbit/s.
  OtherTransfer other(h1, h2, {});
  ASSERT_EQ(other.error, "");
  const PairRun r = RunNicbenchPair(*st, 2, 1, {"-t", "3", "-b", "300M"});
  other.Stop();
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
  OtherTransfer other(n1, n2, {"-b", "1G"});
  ASSERT_EQ(other.error, "");
  const PairRun r = RunNicbenchPair(*st, 2, 1, {"-t", "3", "-b", "100M"});
  other.Stop();
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
