// The driver counter name table on every real `ethtool -S` capture in tests/testdata/ethtool:
// each capture parses, its ring-miss / no-buffer / FIFO / pause / per-queue counters are
// recognised as what they are, and nothing else of it is taken for them.
#include "analysis/driver_counters.h"

#include <set>

#include <gtest/gtest.h>

#include "probes/proc_parsers.h"
#include "probes/test_fixture.h"

namespace nicbench::analysis {
namespace {

using K = CounterKind;

struct Expect {
  const char* name;
  K kind;
  int queue = -1;
};

struct Capture {
  const char* file;
  const char* driver;
  size_t rx_queues, tx_queues;  // per-queue packet counters in the capture
  std::vector<Expect> expects;
};

void PrintTo(const Capture& c, std::ostream* out) { *out << c.file; }

std::map<std::string, uint64_t> Load(const std::string& file) {
  auto parsed = probes::ParseEthtoolStatistics(probes::testing::ReadFixture("ethtool/" + file));
  EXPECT_TRUE(parsed.has_value()) << file;
  return parsed ? *parsed : std::map<std::string, uint64_t>{};
}

class DriverCounterCapture : public ::testing::TestWithParam<Capture> {};

TEST_P(DriverCounterCapture, ClassifiesTheDriversOwnNames) {
  const Capture& c = GetParam();
  const auto stats = Load(c.file);
  ASSERT_FALSE(stats.empty());
  std::set<int> rx, tx;
  for (const auto& [name, value] : stats) {
    const CounterClass cls = ClassifyDriverCounter(c.driver, name);
    if (cls.kind == K::kRxQueuePackets) rx.insert(cls.queue);
    if (cls.kind == K::kTxQueuePackets) tx.insert(cls.queue);
    // Byte counters and good-packet totals are never a drop or a pause.
    if (name.find("bytes") != std::string::npos) {
      EXPECT_EQ(cls.kind, K::kOther) << name;
    }
  }
  EXPECT_EQ(rx.size(), c.rx_queues);
  EXPECT_EQ(tx.size(), c.tx_queues);
  for (const Expect& e : c.expects) {
    ASSERT_TRUE(stats.count(e.name)) << e.name << " is not in " << c.file;
    const CounterClass cls = ClassifyDriverCounter(c.driver, e.name);
    EXPECT_EQ(cls.kind, e.kind) << e.name;
    EXPECT_EQ(cls.queue, e.queue) << e.name;
  }
}

// The per-driver names, as each capture has them.
INSTANTIATE_TEST_SUITE_P(
    RealCaptures, DriverCounterCapture,
    ::testing::Values(Capture{"ethtool-S-e1000e.txt",
                              "e1000e",
                              0,
                              0,
                              {{"rx_missed_errors", K::kRxMissed},
                               {"rx_no_buffer_count", K::kRxNoBuffer},
                               {"alloc_rx_buff_failed", K::kRxAllocFail},
                               {"tx_restart_queue", K::kTxRingFull},
                               {"rx_flow_control_xoff", K::kPauseRx},
                               {"tx_flow_control_xoff", K::kPauseTx},
                               {"rx_flow_control_xon", K::kOther},
                               {"tx_fifo_errors", K::kOther},
                               {"rx_packets", K::kOther}}},
                      Capture{"ethtool-S-r8169.txt",
                              "r8169",
                              0,
                              0,
                              {{"rx_missed", K::kRxMissed}, {"tx_underrun", K::kOther}}},
                      Capture{"ethtool-S-mlx5_core.txt",
                              "mlx5_core",
                              16,
                              16,
                              {{"rx_out_of_buffer", K::kRxNoBuffer},
                               {"rx_discards_phy", K::kRxFifo},
                               {"rx_buff_alloc_err", K::kRxAllocFail},
                               {"tx_queue_stopped", K::kTxRingFull},
                               {"tx3_stopped", K::kTxRingFull, 3},
                               {"tx_queue_dropped", K::kTxDrop},
                               {"rx_pause_ctrl_phy", K::kPauseRx},
                               {"tx_pause_ctrl_phy", K::kPauseTx},
                               {"rx15_packets", K::kRxQueuePackets, 15},
                               {"rx_packets", K::kOther},
                               {"rx_global_pause_duration", K::kOther}}},
                      Capture{"ethtool-S-bnxt_en.txt",
                              "bnxt_en",
                              12,
                              12,
                              {{"rx_total_ring_discards", K::kRxNoBuffer},
                               {"[4]: rx_discards", K::kRxNoBuffer, 4},
                               {"rx_total_oom_discards", K::kRxAllocFail},
                               {"rx_stat_discard", K::kRxFifo},
                               {"rx_pause_frames", K::kPauseRx},
                               {"tx_pause_frames", K::kPauseTx},
                               {"[0]: rx_ucast_packets", K::kRxQueuePackets, 0},
                               {"[0]: rx_mcast_packets", K::kOther},
                               {"[0]: missed_irqs", K::kOther}}},
                      Capture{"ethtool-S-bnx2x.txt",
                              "bnx2x",
                              8,
                              8,
                              {{"rx_discards", K::kRxNoBuffer},
                               {"[2]: rx_discards", K::kRxNoBuffer, 2},
                               {"rx_brb_discard", K::kRxFifo},
                               {"[0]: rx_skb_alloc_discard", K::kRxAllocFail, 0},
                               {"rx_pause_frames", K::kPauseRx},
                               {"tx_pause_frames", K::kPauseTx},
                               {"pfc_frames_received", K::kPauseRx},
                               {"[7]: tx_ucast_packets", K::kTxQueuePackets, 7}}},
                      Capture{"ethtool-S-be2net.txt",
                              "be2net",
                              9,
                              8,
                              {{"rx_drops_no_pbuf", K::kRxNoBuffer},
                               {"rxq0: rx_drops_no_frags", K::kRxNoBuffer, 0},
                               {"rx_input_fifo_overflow_drop", K::kRxFifo},
                               {"rxq0: rx_drops_no_skbs", K::kRxAllocFail, 0},
                               {"txq1: tx_stops", K::kTxRingFull, 1},
                               {"rx_pause_frames", K::kPauseRx},
                               {"tx_pauseframes", K::kPauseTx},
                               {"rxq8: rx_pkts", K::kRxQueuePackets, 8}}},
                      Capture{"ethtool-S-i40e.txt",
                              "i40e",
                              64,
                              64,
                              {{"port.rx_dropped", K::kRxNoBuffer},
                               {"rx_dropped", K::kRxNoBuffer},
                               {"tx_busy", K::kTxRingFull},
                               {"port.link_xoff_rx", K::kPauseRx},
                               {"port.link_xoff_tx", K::kPauseTx},
                               {"port.link_xon_rx", K::kOther},
                               {"rx-63.packets", K::kRxQueuePackets, 63},
                               {"veb.rx_discards", K::kOther}}},
                      Capture{"ethtool-S-iavf.txt",
                              "iavf",
                              16,
                              16,
                              {{"rx_discards", K::kRxNoBuffer}, {"tx_discards", K::kTxDrop}}},
                      Capture{"ethtool-S-ice.txt",
                              "ice",
                              128,
                              128,
                              {{"rx_dropped.nic", K::kRxNoBuffer},
                               {"tx_restart", K::kTxRingFull},
                               {"link_xoff_rx.nic", K::kPauseRx},
                               {"tx_priority_3_xoff.nic", K::kPauseTx},
                               {"rx_queue_127_packets", K::kRxQueuePackets, 127}}},
                      Capture{"ethtool-S-ena.txt",
                              "ena",
                              4,
                              4,
                              {{"queue_0_tx_queue_stop", K::kTxRingFull, 0},
                               {"queue_3_rx_page_alloc_fail", K::kRxAllocFail, 3},
                               {"queue_2_rx_cnt", K::kRxQueuePackets, 2},
                               {"queue_0_rx_empty_rx_ring", K::kOther}}},
                      Capture{"ethtool-S-virtio_net.txt",
                              "virtio_net",
                              2,
                              2,
                              {{"rx_queue_1_packets", K::kRxQueuePackets, 1}}},
                      Capture{"ethtool-S-veth.txt",
                              "veth",
                              4,
                              0,
                              {{"rx_queue_3_xdp_packets", K::kRxQueuePackets, 3},
                               {"rx_queue_0_drops", K::kOther},
                               {"tx_queue_0_xdp_xmit", K::kOther},
                               {"peer_ifindex", K::kOther}}}));

TEST(DriverCounters, AnUnknownDriverGetsOnlyTheNamesEveryDriverMeansAlike) {
  EXPECT_EQ(ClassifyDriverCounter("", "rx_missed_errors").kind, K::kRxMissed);
  EXPECT_EQ(ClassifyDriverCounter("", "rx_queue_3_packets").queue, 3);
  // i40e's rx_dropped is its ring's; elsewhere the name is too loose to mean that.
  EXPECT_EQ(ClassifyDriverCounter("", "rx_dropped").kind, K::kOther);
  EXPECT_EQ(ClassifyDriverCounter("r8169", "rx_dropped").kind, K::kOther);
  EXPECT_EQ(ClassifyDriverCounter("", "rx_queue__packets").kind, K::kOther);
}

// Two readings of the real mlx5 capture: ring misses on queue 3's host ring and the port's
// buffer, pause frames sent, and the queues' packets.
TEST(DriverCounters, DeltasOfTwoReadingsOfARealCapture) {
  const auto before = Load("ethtool-S-mlx5_core.txt");
  auto after = before;
  after["rx_out_of_buffer"] += 5000;
  after["rx_discards_phy"] += 300;
  after["tx_pause_ctrl_phy"] += 40;
  after["rx3_packets"] += 1'000'000;
  after["rx5_packets"] += 10;
  after["rx_bytes"] += 1'500'000'000;
  after["tx0_packets"] -= 1;  // a counter that went backwards (reset) counts nothing
  const DriverCounterMoves m = DriverCounterDeltas("mlx5_core", before, after);
  EXPECT_EQ(m.Total(K::kRxNoBuffer), 5000u);
  EXPECT_EQ(m.Total(K::kRxFifo), 300u);
  EXPECT_EQ(m.Total(K::kPauseTx), 40u);
  EXPECT_EQ(m.Total(K::kPauseRx), 0u);
  EXPECT_EQ(m.Total(K::kRxQueuePackets), 1'000'010u);
  EXPECT_EQ(m.rx_queue_packets.at(3), 1'000'000u);
  EXPECT_TRUE(m.tx_queue_packets.empty());
}

// i40e counts ring drops at the port and at the VSI: the same frames, so the larger, not both.
TEST(DriverCounters, OneKindCountedAtTwoLevelsIsNotAddedTwice) {
  const auto before = Load("ethtool-S-i40e.txt");
  auto after = before;
  after["port.rx_dropped"] += 700;
  after["rx_dropped"] += 650;
  EXPECT_EQ(DriverCounterDeltas("i40e", before, after).Total(K::kRxNoBuffer), 700u);
}

TEST(DriverCounters, UnknownWithoutBothReadings) {
  record::NicFacts nic;
  nic.driver = std::string("e1000e");
  nic.driver_stats = std::map<std::string, uint64_t>{{"rx_missed_errors", 1}};
  EXPECT_FALSE(DriverCounterDeltas(nic).has_value());
  nic.driver_stats_after = std::map<std::string, uint64_t>{{"rx_missed_errors", 9}};
  ASSERT_TRUE(DriverCounterDeltas(nic).has_value());
  EXPECT_EQ(DriverCounterDeltas(nic)->Total(K::kRxMissed), 8u);
}

TEST(EthtoolStatisticsText, HeaderIndentAndBracketedNames) {
  auto s = probes::ParseEthtoolStatistics(
      "NIC statistics:\n     [0]: rx_discards: 11\n     tx_packets: 3\nTx LPI entry count: 0\n");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->at("[0]: rx_discards"), 11u);
  EXPECT_EQ(s->at("Tx LPI entry count"), 0u);
  EXPECT_EQ(s->size(), 3u);
  EXPECT_FALSE(probes::ParseEthtoolStatistics("no statistics here\n").has_value());
}

}  // namespace
}  // namespace nicbench::analysis
