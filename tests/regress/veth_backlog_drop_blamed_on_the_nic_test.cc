// Bug (issue 28, found live by tests/integration/netns/diagnosis_queues_test.cc): on a veth
// pair, one packet the receiving CPU's softnet backlog refused is counted three times: in
// /proc/net/softnet_stat, as the sending veth's tx_dropped and as the receiving veth's
// rx_dropped (+441,276, +436,466 and +436,276 in one run). The drop ladder counted the veths'
// counters as a NIC rung, so its title named "the NIC at the local client (sender)" as the
// lowest layer that dropped, and nic-drops blamed "the NIC" at both ends. A veth has no NIC: the
// ladder now names the softnet backlog, and nic-drops stays silent while the backlog accounts
// for the veth's drops.
#include <string>

#include <gtest/gtest.h>

#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"

namespace nicbench::regress {
namespace {

using namespace diagnosis::testing;

// The live run's figures, all in one interval of a forward TCP test between two veths of one
// host.
record::RunRecord VethBacklogOverflow() {
  record::RunRecord run = MakeRun(2e9);
  Remote(run).host.hostname = run.local.host.hostname;
  run.local.nic = VethNic();
  Remote(run).nic = VethNic();
  Remote(run).nic.interface = "nb-h2-e0";
  for (auto* end : {&run.local, &Remote(run)}) {
    const bool sender = end == &run.local;
    record::HostInterval& s = end->samples.at(3);
    s.nic_counters = std::map<std::string, int64_t>{{"rx_packets", sender ? 150000 : 320000},
                                                    {"rx_dropped", sender ? 0 : 436276},
                                                    {"tx_packets", sender ? 320000 : 150000},
                                                    {"tx_dropped", sender ? 436466 : 0}};
    s.softnet = std::vector<record::SoftnetDelta>{{0, 320000, 441276, 40}};
  }
  return run;
}

TEST(VethBacklogDropBlamedOnTheNic, TheLadderNamesTheSoftnetBacklog) {
  const auto findings = diagnosis::Diagnose(VethBacklogOverflow());
  const record::Finding* ladder = nullptr;
  for (const auto& f : findings) {
    if (f.id == "drop-ladder") ladder = &f;
  }
  ASSERT_NE(ladder, nullptr);
  EXPECT_NE(ladder->title.find("the softnet backlog at the"), std::string::npos) << ladder->title;
  EXPECT_EQ(ladder->title.find("NIC"), std::string::npos) << ladder->title;
}

TEST(VethBacklogDropBlamedOnTheNic, NoEndsNicIsBlamed) {
  for (const auto& f : diagnosis::Diagnose(VethBacklogOverflow())) {
    EXPECT_NE(f.id, "nic-drops") << f.title;
    EXPECT_EQ(f.title.find("The NIC dropped"), std::string::npos) << f.title;
  }
}

}  // namespace
}  // namespace nicbench::regress
