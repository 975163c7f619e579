// UDP pacing through a 100baseTX stand link with batched sends: the sender asks its pacer once
// per batch how many datagrams are due (engine/pacer.h), with sendmmsg and with UDP_SEGMENT
// (--udp-offload; a veth segments in software). Below the line rate the offered rate stays
// within the ±3% the link scenarios use (docs/accuracy.md), nothing is lost, and the server
// counts the datagrams the client sent. Root only.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "accuracy_stand.h"

namespace nicbench::accuracy {
namespace {

// As accuracy_udp_test.cc: a receiver starved of the CPU on a busy machine only adds loss, so
// the loss bound must hold in one of a few runs; the rate and the agreement in every run.

// One run at 60 Mbit/s; returns the share of datagrams lost.
double PacedRun(const stand::ScopedStand& stand, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"-u", "-b", "60M", "-l", "1400", "-t", "8", "-O", "2"};
  args.insert(args.end(), extra.begin(), extra.end());
  PairRun run = RunNicbenchPair(stand, 2, 1, args);
  EXPECT_TRUE(run.doc.is_object()) << run.client.err;
  if (!run.doc.is_object()) return NAN;
  const double offered = NumberAt(run.doc, "/end/sum_sent/bits_per_second");
  EXPECT_LE(RelativeError(offered, 60e6), 0.03) << Mbps(offered);
  const double sent = NumberAt(run.doc, "/end/sum_sent/packets");
  const double lost = NumberAt(run.doc, "/end/sum/lost_packets");
  EXPECT_GT(sent, 0);
  EXPECT_TRUE(run.server_doc.is_object()) << run.server.err;
  if (run.server_doc.is_object()) {
    EXPECT_EQ(NumberAt(run.server_doc, "/end/sum/packets"), NumberAt(run.doc, "/end/sum/packets"));
    EXPECT_EQ(NumberAt(run.server_doc, "/end/sum/lost_packets"), lost);
  }
  return sent > 0 ? lost / sent : NAN;
}

void ExpectPacedExactly(const stand::ScopedStand& stand, const std::vector<std::string>& extra) {
  double best = INFINITY;
  for (int attempt = 0; attempt < kAttempts && !(best < 0.001); ++attempt) {
    best = std::fmin(best, PacedRun(stand, extra));
  }
  EXPECT_LT(best, 0.001) << "lost " << best * 100 << "% of the datagrams in the best of "
                         << kAttempts << " runs";
}

TEST(UdpPacing, BatchedSendsKeepTheRate) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto stand = UpStand("udppace1", stand::Profile::k100BaseTx);
  ASSERT_TRUE(stand) << stand.error().ToString();
  ExpectPacedExactly(*stand, {});
}

TEST(UdpPacing, SegmentationOffloadKeepsTheRate) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto stand = UpStand("udppace2", stand::Profile::k100BaseTx);
  ASSERT_TRUE(stand) << stand.error().ToString();
  ExpectPacedExactly(*stand, {"--udp-offload"});
}

}  // namespace
}  // namespace nicbench::accuracy
