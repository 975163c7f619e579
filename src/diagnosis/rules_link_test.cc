// The UDP offer against the link, from a run recorded on the stand (tests/testdata/records):
// `run 198.18.0.2 -u -b 200M -t 4` over a 100baseTX stand (tbf 100 Mbit/s, overhead 24).
#include <algorithm>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"
#include "record/json.h"
#include "support/run_binary.h"

namespace nicbench::diagnosis {
namespace {

record::RunRecord Recorded(const std::string& name) {
  std::ifstream in(nicbench::testing::TestdataDir() + "/records/" + name);
  auto run = record::RunRecordFromJson(nlohmann::json::parse(in));
  EXPECT_TRUE(run) << run.error().ToString();
  return run ? *run : record::RunRecord{};
}

using testing::AnyEvidence;
using testing::Find;

TEST(UdpOfferedAboveLink, RecordedStandRunSaysWhatWasAskedAndWhatTheLinkCarries) {
  const record::RunRecord run = Recorded("udp-b200M-100baseTX-stand.json");
  const auto findings = Diagnose(run);
  const record::Finding* f = Find(findings, "udp-offered-above-link");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, record::Severity::kWarning);
  EXPECT_NE(f->title.find("200.00 Mbits/sec asked"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("the link carries 95.64 Mbits/sec"), std::string::npos) << f->title;
  EXPECT_TRUE(AnyEvidence(*f, "offered: 200.00 Mbits/sec (-b 200.00 Mbits/sec x 1 stream(s))"));
  EXPECT_TRUE(AnyEvidence(*f, "tbf qdisc rate on st35a-h1-e0"));
  std::string all;
  for (const auto& e : f->evidence) all += e + "\n";
  SCOPED_TRACE(all);
  EXPECT_TRUE(AnyEvidence(*f, "delivered: 94.91 Mbits/sec over 4.0 s, 99% of what the link"));
  EXPECT_TRUE(AnyEvidence(*f, "0 of 32859 datagrams lost (0.0%)"));
  EXPECT_TRUE(AnyEvidence(*f, "Udp.SndbufErrors +693"));
  EXPECT_NE(f->next_step.find("-b 95M"), std::string::npos) << f->next_step;
}

TEST(UdpOfferedAboveLink, SilentAtOrBelowTheLinkAndWithoutAnOffer) {
  record::RunRecord run = Recorded("udp-b200M-100baseTX-stand.json");
  run.spec.rate_bits_per_second = 95000000;  // below 95.64 Mbit/s of goodput
  EXPECT_EQ(Find(Diagnose(run), "udp-offered-above-link"), nullptr);
  run.spec.rate_bits_per_second = 0;  // unlimited: nothing was asked
  EXPECT_EQ(Find(Diagnose(run), "udp-offered-above-link"), nullptr);
}

TEST(UdpOfferedAboveLink, StreamsAddUpAndTcpIsNotJudged) {
  // A gigabit link carries 1000 x 1448 / (1476 + 38) = 956.4 Mbit/s of 1448-byte datagrams.
  record::RunRecord run = testing::MakeRun(900e6);
  run.spec.transport = record::Transport::kUdp;
  run.spec.block_bytes = 1448;
  run.spec.rate_bits_per_second = 500000000;
  EXPECT_EQ(Find(Diagnose(run), "udp-offered-above-link"), nullptr) << "one stream of 500M";
  record::StreamTotals second = run.streams[0];
  second.id = 6;
  run.streams.push_back(second);
  const auto findings = Diagnose(run);
  const record::Finding* f = Find(findings, "udp-offered-above-link");
  ASSERT_NE(f, nullptr) << "two streams of 500M offer 1000M";
  EXPECT_TRUE(AnyEvidence(*f, "x 2 stream(s)"));
  EXPECT_NE(f->next_step.find("-b 478M"), std::string::npos) << f->next_step;
  run.spec.transport = record::Transport::kTcp;
  EXPECT_EQ(Find(Diagnose(run), "udp-offered-above-link"), nullptr);
}

}  // namespace
}  // namespace nicbench::diagnosis
