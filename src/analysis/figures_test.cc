#include "analysis/figures.h"

#include <gtest/gtest.h>

#include "analysis/compare_sets.h"
#include "analysis/test_runs.h"

namespace nicbench::analysis {
namespace {

using testing::MakeRun;
using testing::RunShape;

TEST(Figures, EachFigureInItsUnit) {
  RunFigures f = ComputeFigures(MakeRun());
  ASSERT_TRUE(f.client_to_server.receiver_bits_per_second.known());
  EXPECT_DOUBLE_EQ(f.client_to_server.receiver_bits_per_second.value(), 8e9);
  EXPECT_DOUBLE_EQ(f.client_to_server.sender_bits_per_second.value(), 8e9);
  EXPECT_FALSE(f.server_to_client.receiver_bits_per_second.known());  // nothing went that way
  // 4 CPUs x 25% = one core busy while 1 GB/s moves: 1 CPU-second per GB at each end.
  EXPECT_NEAR(f.client.cpu_seconds_per_gigabyte.value(), 1.0, 1e-9);
  EXPECT_NEAR(f.server.cpu_seconds_per_gigabyte.value(), 1.0, 1e-9);
  // 8000 interrupts/s at 1 GB/s.
  EXPECT_NEAR(f.server.nic_interrupts_per_gigabyte.value(), 8000, 1e-6);
  EXPECT_DOUBLE_EQ(f.retransmits.value(), 0);  // measured zero is a value
  EXPECT_DOUBLE_EQ(f.mean_rtt_us.value(), 100);
}

TEST(Figures, ReverseRunsCountTheServerAsSender) {
  RunShape shape;
  shape.direction = record::Direction::kReverse;
  shape.rtt_us = 250;
  RunFigures f = ComputeFigures(MakeRun(shape));
  EXPECT_FALSE(f.client_to_server.receiver_bits_per_second.known());
  EXPECT_DOUBLE_EQ(f.server_to_client.receiver_bits_per_second.value(), 8e9);
  EXPECT_DOUBLE_EQ(f.mean_rtt_us.value(), 250);  // from the server's (sender's) intervals
  EXPECT_TRUE(DutyOf(Role::kClient, record::Direction::kReverse).receives);
  EXPECT_FALSE(DutyOf(Role::kClient, record::Direction::kReverse).sends);
}

TEST(Figures, UnmeasuredIsUnknownNeverZero) {
  record::RunRecord run = MakeRun();
  run.remote = record::Measured<record::EndpointRecord>::Unknown(record::Missing::kNotReported);
  run.streams[0].retransmits = record::Measured<uint64_t>::Unknown(record::Missing::kNotReported);
  for (auto& s : run.local.samples)
    s.cpus = record::Measured<std::vector<record::CpuShare>>::Unknown(
        record::Missing::kPermissionDenied);
  run.local.nic.loopback = true;
  for (auto& s : run.local.samples) s.irqs.value()[0].nic = false;
  RunFigures f = ComputeFigures(run);
  EXPECT_FALSE(f.server.cpu_seconds_per_gigabyte.known());
  EXPECT_EQ(f.server.cpu_seconds_per_gigabyte.why(), record::Missing::kNotReported);
  EXPECT_FALSE(f.client.cpu_seconds_per_gigabyte.known());
  EXPECT_FALSE(f.client.nic_interrupts_per_gigabyte.known());
  EXPECT_EQ(f.client.nic_interrupts_per_gigabyte.detail(), "no NIC interrupt lines");
  EXPECT_FALSE(f.retransmits.known());
}

// An interrupted run's streams hold this end's side only: the peer's count is unknown, not 0.
TEST(Figures, AnInterruptedRunsPeerSideIsUnknown) {
  record::RunRecord run = MakeRun();
  run.incomplete = true;
  for (auto& s : run.streams) {
    s.peer_reported = false;
    s.bytes_received = 0;
  }
  RunFigures f = ComputeFigures(run);
  EXPECT_DOUBLE_EQ(f.client_to_server.sender_bits_per_second.value(), 8e9);
  EXPECT_FALSE(f.client_to_server.receiver_bits_per_second.known());
  EXPECT_EQ(f.client_to_server.receiver_bits_per_second.why(), record::Missing::kNotReported);
}

TEST(Figures, BidirectionalEndsPayForBothDirections) {
  RunShape shape;
  shape.direction = record::Direction::kBidirectional;
  record::RunRecord run = MakeRun(shape);
  run.streams[0].sender = true;
  record::StreamTotals back = run.streams[0];
  back.id = 2;
  back.sender = false;
  run.streams.push_back(back);
  RunFigures f = ComputeFigures(run);
  EXPECT_DOUBLE_EQ(f.server_to_client.receiver_bits_per_second.value(), 8e9);
  EXPECT_NEAR(f.client.cpu_seconds_per_gigabyte.value(), 0.5, 1e-9);  // 2 GB/s through it
}

TEST(CompareSets, ReceiverCpuDifferenceIsSignificantAndNamed) {
  std::vector<record::RunRecord> on, off;
  for (int i = 0; i < 5; ++i) {
    RunShape a, b;
    a.busy_percent = 20 + i * 0.1;
    b.busy_percent = 30 + i * 0.1;
    b.tso = false;
    on.push_back(MakeRun(a));
    off.push_back(MakeRun(b));
  }
  std::vector<const record::RunRecord*> pa, pb;
  for (auto& r : on) pa.push_back(&r);
  for (auto& r : off) pb.push_back(&r);
  SetComparison c = CompareSets(pa, pb);
  ASSERT_TRUE(c.direction);
  const MetricComparison* cpu = nullptr;
  for (const auto& m : c.metrics) {
    if (std::string(m.metric->key) == "server_cpu_seconds_per_gigabyte") cpu = &m;
    EXPECT_NE(std::string(m.metric->key), "goodput_server_to_client_bits_per_second");
  }
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(MetricName(*cpu->metric, c.direction), "server (receiver) CPU per GB");
  EXPECT_EQ(cpu->comparison.verdict, Verdict::kSignificant);
  EXPECT_NEAR(*cpu->comparison.change_percent, 50, 1);
  // Goodput is identical in both sets: not significant.
  EXPECT_NE(c.metrics[0].comparison.verdict, Verdict::kSignificant);
}

}  // namespace
}  // namespace nicbench::analysis
