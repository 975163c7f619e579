#include "analysis/drop_ladder.h"

#include <gtest/gtest.h>

#include "analysis/test_runs.h"

namespace nicbench::analysis {
namespace {

using testing::MakeRun;

record::EndpointRecord& Server(record::RunRecord& run) { return run.remote.value(); }

TEST(DropLadder, OneRungPerLayerBottomUp) {
  record::RunRecord run = MakeRun();
  for (auto& s : Server(run).samples) {
    s.nic_counters = std::map<std::string, int64_t>{
        {"rx_missed_errors", 10}, {"rx_dropped", 2}, {"rx_errors", 10}, {"tx_dropped", 0}};
    s.softnet = std::vector<record::SoftnetDelta>{{0, 1000, 3, 7}, {1, 500, 1, 0}};
    s.net_counters =
        std::map<std::string, int64_t>{{"Udp.RcvbufErrors", 0}, {"TcpExt.TCPRcvQDrop", 5}};
  }
  const std::vector<Rung> ladder = DropLadderOf(run, Server(run));
  ASSERT_EQ(ladder.size(), 5u);
  EXPECT_EQ(ladder[0].layer, Layer::kNic);
  EXPECT_EQ(ladder[0].dropped, 4u * 12);  // 4 samples: misses and no-buffer, not the errors
  EXPECT_EQ(RungText(ladder[0]), "48 (misses 40, no-buffer 8, tx drops 0, errors 40)");
  EXPECT_EQ(RungText(ladder[1]), "16 (dropped 16, time squeeze 28)");
  EXPECT_FALSE(ladder[2].dropped);  // the samples carry no queue readings
  EXPECT_EQ(RungText(ladder[2]),
            "unknown (not present; `tc -s qdisc show dev eth0` shows its drops)");
  EXPECT_EQ(RungText(ladder[3]), "20 (RcvbufErrors 0, TCPRcvQDrop 20)");
  // The server receives: it sends nothing to retransmit.
  EXPECT_EQ(RungText(ladder[4]), "unknown (this end sends no data)");
  EXPECT_EQ(RungText(DropLadderOf(run, run.local)[4]), "0");  // the client's streams: 0
}

// Issue 28's ladder has a qdisc rung: a shaper that drops (a tbf with a short queue) is counted
// from the root qdisc's cumulative drop counter read at each interval's end. It read "not
// sampled" although the samples carry the reading.
TEST(DropLadder, TheQdiscRungCountsTheRootQdiscsDropsDuringTheTest) {
  record::RunRecord run = MakeRun();
  auto& samples = run.local.samples;  // 4 intervals; the first is the warm-up (omitted)
  run.spec.omit = std::chrono::milliseconds(1000);
  const uint64_t drops[] = {100, 130, 190, 260};  // cumulative, since the qdisc was made
  for (size_t i = 0; i < samples.size(); ++i) {
    samples[i].queues = record::QueueSample{"tbf", 3000, 2, drops[i], {}};
  }
  Rung qdisc = DropLadderOf(run, run.local)[2];
  EXPECT_EQ(qdisc.layer, Layer::kQdisc);
  EXPECT_EQ(qdisc.dropped, 160u);  // 260 at the end less 100 when the counted intervals began
  EXPECT_EQ(qdisc.source, "the root qdisc's drop counter (tbf), read at each interval's end");
  // Nothing omitted: the first interval's end is the base, and the source says so.
  run.spec.omit = std::chrono::milliseconds(0);
  qdisc = DropLadderOf(run, run.local)[2];
  EXPECT_EQ(qdisc.dropped, 160u);
  EXPECT_NE(qdisc.source.find("from the end of the first counted interval"), std::string::npos);
  // A qdisc replaced during the test (its counter starts again): unknown, with the reason.
  samples.back().queues = record::QueueSample{"fq_codel", 0, 0, 3, {}};
  qdisc = DropLadderOf(run, run.local)[2];
  EXPECT_FALSE(qdisc.dropped);
  EXPECT_NE(qdisc.why.find("replaced during the test"), std::string::npos) << qdisc.why;
}

TEST(DropLadder, UnknownLayersSayWhy) {
  record::RunRecord run = MakeRun();
  run.local.nic.loopback = true;
  for (auto& s : run.local.samples) {
    s.softnet = record::Measured<std::vector<record::SoftnetDelta>>::Unknown(
        record::Missing::kPermissionDenied, "/proc/net/softnet_stat");
  }
  run.spec.transport = record::Transport::kUdp;
  const std::vector<Rung> ladder = DropLadderOf(run, run.local);
  EXPECT_EQ(RungText(ladder[0]), "unknown (loopback: no NIC on the path)");
  EXPECT_EQ(RungText(ladder[1]), "unknown (permission denied: /proc/net/softnet_stat)");
  EXPECT_EQ(RungText(ladder[4]), "unknown (not TCP: nothing is retransmitted)");
  run.local.samples.clear();
  EXPECT_EQ(RungText(DropLadderOf(run, run.local)[3]), "unknown (no host samples from this end)");
}

// The netns test's backlog overflow on a veth pair: the receiving veth's rx_dropped is the
// softnet backlog's drops, counted again. A veth has no NIC rung; the softnet rung holds them.
TEST(DropLadder, AVethsDropCountersAreNotANicRung) {
  record::RunRecord run = MakeRun();
  record::EndpointRecord& server = Server(run);
  server.nic.driver = std::string("veth");
  for (auto& s : server.samples) {
    s.nic_counters = std::map<std::string, int64_t>{{"rx_dropped", 109069}, {"tx_dropped", 0}};
    s.softnet = std::vector<record::SoftnetDelta>{{0, 16000, 109069, 12}};
  }
  const std::vector<Rung> ladder = DropLadderOf(run, server);
  EXPECT_FALSE(ladder[0].dropped);
  EXPECT_EQ(RungText(ladder[0]),
            "unknown (veth: no NIC on the path; its rx_dropped 436276 and tx_dropped 0 are the "
            "kernel's queues)");
  EXPECT_EQ(ladder[1].dropped, 4u * 109069);
}

TEST(DropLadder, ARealNicsCountersStayItsRung) {
  record::RunRecord run = MakeRun();
  ASSERT_EQ(Server(run).nic.driver.value(), "igb");
  for (auto& s : Server(run).samples) {
    s.nic_counters = std::map<std::string, int64_t>{{"rx_missed_errors", 30}, {"rx_dropped", 0}};
  }
  EXPECT_EQ(RungText(DropLadderOf(run, Server(run))[0]),
            "120 (misses 120, no-buffer 0, tx drops 0, errors 0)");
}

TEST(DropLadder, TheDriverCountersWinWhenTheyCountMore) {
  record::RunRecord run = MakeRun();
  record::NicFacts& nic = Server(run).nic;
  nic.driver = std::string("e1000e");
  nic.driver_stats =
      std::map<std::string, uint64_t>{{"rx_missed_errors", 0}, {"rx_no_buffer_count", 0}};
  nic.driver_stats_after =
      std::map<std::string, uint64_t>{{"rx_missed_errors", 5000}, {"rx_no_buffer_count", 6200}};
  const Rung nic_rung = DropLadderOf(run, Server(run))[0];
  // e1000e counts one lost frame as missed and as no-buffer: the larger, not the sum.
  EXPECT_EQ(nic_rung.dropped, 6200u);
  EXPECT_EQ(nic_rung.source, "the driver's ring and buffer counters (ethtool -S)");
}

}  // namespace
}  // namespace nicbench::analysis
