#include <gtest/gtest.h>

#include "analysis/figures.h"
#include "record/json_test_records.h"

namespace nicbench::analysis {
namespace {

using record::testing::MakeRrRun;

TEST(RrFigures, TheWholeTestsFiguresOfEachEnd) {
  const RrFigures f = ComputeFigures(MakeRrRun(record::Transport::kUdp)).rr;
  ASSERT_TRUE(f.transactions_per_second.known());
  EXPECT_DOUBLE_EQ(f.transactions_per_second.value(), 20500);
  EXPECT_DOUBLE_EQ(f.latency_p50_us.value(), 40.5);
  EXPECT_DOUBLE_EQ(f.latency_p999_us.value(), 100.5);
  EXPECT_DOUBLE_EQ(f.latency_max_us.value(), 940.5);
  EXPECT_DOUBLE_EQ(f.lost.value(), 6);
  EXPECT_DOUBLE_EQ(f.late.value(), 2);
  EXPECT_FALSE(f.connect_p50_us.known());
  EXPECT_DOUBLE_EQ(f.client_process_us_per_transaction.value(), 14.25);
  EXPECT_DOUBLE_EQ(f.server_host_us_per_transaction.value(), 36.25);
}

TEST(RrFigures, AServersRecordHasItsOwnCpuAsTheServers) {
  record::RunRecord run = MakeRrRun(record::Transport::kTcp, record::RrMode::kCrr);
  std::swap(run.local.role, run.remote.value().role);
  run.rr->local.latency.reset();
  run.rr->local.connect.reset();
  const RrFigures f = ComputeRrFigures(run);
  EXPECT_DOUBLE_EQ(f.server_process_us_per_transaction.value(), 14.25);
  EXPECT_DOUBLE_EQ(f.client_process_us_per_transaction.value(), 13.5);
  EXPECT_FALSE(f.latency_p50_us.known()) << "a server does not time transactions";
  EXPECT_FALSE(f.lost.known()) << "TCP";
}

TEST(RrFigures, UnknownForABulkRunAndForAPeerWithoutCpu) {
  const RrFigures bulk = ComputeFigures(record::testing::MakeTcpRun()).rr;
  EXPECT_FALSE(bulk.transactions_per_second.known());
  EXPECT_FALSE(bulk.client_process_us_per_transaction.known());
  record::RunRecord run = MakeRrRun(record::Transport::kTcp, record::RrMode::kCrr);
  run.rr->remote_process_us_per_transaction.reset();
  const RrFigures f = ComputeRrFigures(run);
  EXPECT_FALSE(f.server_process_us_per_transaction.known());
  EXPECT_DOUBLE_EQ(f.connect_p99_us.value(), 20);
}

}  // namespace
}  // namespace nicbench::analysis
