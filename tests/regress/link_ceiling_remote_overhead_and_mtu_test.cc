// Bug, two cases of one link model:
// 1. The remote end's tbf overhead was not carried in its record (the exchange JSON dropped
//    Qdisc::overhead_bytes), so a reverse test on the stand, where the remote end's qdisc shapes
//    the flow, computed its ceiling as 1448/1514 instead of 1448/1538 and read 98% at full rate.
// 2. With an MTU mismatch (h2 9000, h1 1500) the model took the sender's MTU as the packet size
//    although the peer's MSS kept packets at 1500 bytes: "947.07 Mbits/sec is 590% of what the
//    qdisc's rate carries".
// The ceiling now comes from the path's smallest MTU and the sender's own shaping, carried in
// its record; a run at the physical maximum is 100% of it, never more.
#include <string>

#include <gtest/gtest.h>

#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"
#include "record/json.h"

namespace nicbench::regress {
namespace {

using diagnosis::testing::MakeIntervals;
using diagnosis::testing::MakeRun;
using diagnosis::testing::Remote;
using diagnosis::testing::VethNic;

using diagnosis::testing::Find;

// A reverse test: the remote server sends, the local client receives, over a stand link whose
// tbf (rate `rate`, overhead 24) sits on each end's egress. The remote end comes through the
// results exchange's JSON, as it does in a real run.
record::RunRecord ReverseStandRun(double goodput, uint64_t rate) {
  record::RunRecord run = MakeRun(goodput);
  run.spec.direction = record::Direction::kReverse;
  run.local.nic = VethNic(rate);
  Remote(run).nic = VethNic(rate);
  run.local.intervals = MakeIntervals(goodput, false);
  Remote(run).intervals = MakeIntervals(goodput, true);
  run.intervals = run.local.intervals;
  run.streams[0].sender = false;
  auto remote = record::EndpointFromJson(nlohmann::json(Remote(run)));
  EXPECT_TRUE(remote) << remote.error().ToString();
  run.remote = *remote;
  return run;
}

TEST(LinkCeiling, ReverseTestChargesTheRemoteQdiscsOverhead) {
  // 100 Mbit/s tbf with overhead 24: 100 x 1448 / (1500 + 14 + 24) = 94.15 Mbit/s.
  const double full = 100e6 * 1448 / 1538;
  record::RunRecord run = ReverseStandRun(full, 100000000);
  ASSERT_EQ(Remote(run).nic.qdisc.value().overhead_bytes, 24u) << "lost in the exchange";
  auto findings = diagnosis::Diagnose(run);
  const record::Finding* link = Find(findings, "link-rate-limited");
  ASSERT_NE(link, nullptr);
  EXPECT_NE(link->title.find(" 100% "), std::string::npos) << link->title;
  bool formula = false;
  for (const std::string& e : link->evidence) formula = formula || e.find("1448/1538") != e.npos;
  EXPECT_TRUE(formula) << "the formula must use the remote qdisc's overhead";
}

TEST(LinkCeiling, MtuMismatchUsesThePathsSmallestMtu) {
  // h2 (9000) sends to h1 (1500) over a 1 Gbit/s tbf: packets are 1500 bytes, so the ceiling
  // is 1000 x 1448 / 1538 = 941.5 Mbit/s and a run at it is 100%, not 590%.
  const double full = 1000e6 * 1448 / 1538;
  record::RunRecord run = ReverseStandRun(full, 1000000000);
  Remote(run).nic.mtu = 9000u;
  run.local.nic.mtu = 1500u;
  auto findings = diagnosis::Diagnose(run);
  const record::Finding* link = Find(findings, "link-rate-limited");
  ASSERT_NE(link, nullptr);
  EXPECT_NE(link->title.find(" 100% "), std::string::npos) << link->title;
  for (const auto& f : findings) {
    EXPECT_EQ(f.title.find("590%"), std::string::npos) << f.title;
  }
}

// The 1000baseT stand with TSO on moved ~950 Mbit/s, "101%" of 1448/1538: its tbf bucket
// (125000 B) holds a whole 64 KiB TSO burst, which tbf charges as one packet, overhead once.
// A 100baseTX bucket (12500 B) does not, so the overhead stays per frame there.
TEST(LinkCeiling, TsoBurstsThatFitTheBucketPayTheOverheadOnce) {
  record::RunRecord run = ReverseStandRun(950e6, 1000000000);
  Remote(run).nic.qdisc = record::Qdisc{"tbf", 1000000000, 24, 125000};
  auto findings = diagnosis::Diagnose(run);
  const record::Finding* link = Find(findings, "link-rate-limited");
  ASSERT_NE(link, nullptr);
  EXPECT_NE(link->title.find(" 99% "), std::string::npos) << link->title;
  bool formula = false;
  for (const std::string& e : link->evidence) formula = formula || e.find("1448/1515") != e.npos;
  EXPECT_TRUE(formula);

  record::RunRecord slow = ReverseStandRun(100e6 * 1448 / 1538, 100000000);
  Remote(slow).nic.qdisc = record::Qdisc{"tbf", 100000000, 24, 12500};
  findings = diagnosis::Diagnose(slow);
  link = Find(findings, "link-rate-limited");
  ASSERT_NE(link, nullptr);
  EXPECT_NE(link->title.find(" 100% "), std::string::npos) << link->title;
}

}  // namespace
}  // namespace nicbench::regress
