#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "analysis/figures.h"
#include "record/json.h"
#include "record/json_test_records.h"
#include "support/run_binary.h"

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

// `nicbench run 127.0.0.1 --rr --rr-spin 50 -t 2` as the store kept it (tests/testdata/records),
// written when the engine still computed the service demand into the record's RrSummary.
nlohmann::json RecordedRrSpinRun() {
  std::ifstream in(nicbench::testing::TestdataDir() + "/records/rr-spin50-loopback-2cpu.json");
  return nlohmann::json::parse(in);
}

record::RunRecord ReadRrSpinRecord(const nlohmann::json& j) {
  auto run = record::RunRecordFromJson(j);
  EXPECT_TRUE(run) << run.error().ToString();
  return run ? *run : record::RunRecord{};
}

const char* const kRrDemandMembers[] = {
    "local_process_us_per_transaction", "remote_process_us_per_transaction",
    "local_host_us_per_transaction", "remote_host_us_per_transaction"};

TEST(RrServiceDemand, AnOlderRecordShowsTheFiguresItCarries) {
  const nlohmann::json j = RecordedRrSpinRun();
  const RrFigures f = ComputeRrFigures(ReadRrSpinRecord(j));
  const nlohmann::json& rr = j["rr"];
  EXPECT_EQ(f.client_process_us_per_transaction.value(),
            rr["local_process_us_per_transaction"].get<double>());
  EXPECT_EQ(f.server_process_us_per_transaction.value(),
            rr["remote_process_us_per_transaction"].get<double>());
  EXPECT_EQ(f.client_host_us_per_transaction.value(),
            rr["local_host_us_per_transaction"].get<double>());
  EXPECT_EQ(f.server_host_us_per_transaction.value(),
            rr["remote_host_us_per_transaction"].get<double>());
}

// A record of this version holds the counts only: the figures computed from them are the ones
// the engine wrote into the recorded run, and -J's `end.rr` is the same document.
TEST(RrServiceDemand, ARecordWithoutThemGivesTheSameFiguresFromItsCounts) {
  const nlohmann::json recorded = RecordedRrSpinRun();
  nlohmann::json counts_only = recorded;
  for (const char* member : kRrDemandMembers) counts_only["rr"].erase(member);
  const record::RunRecord run = ReadRrSpinRecord(counts_only);
  ASSERT_TRUE(run.rr);
  EXPECT_FALSE(run.rr->local_process_us_per_transaction) << "nothing computed was read";
  const RrServiceDemand d = ComputeRrServiceDemand(run);
  const nlohmann::json& rr = recorded["rr"];
  ASSERT_TRUE(d.local_process_us && d.remote_process_us && d.local_host_us && d.remote_host_us);
  EXPECT_DOUBLE_EQ(*d.local_process_us, rr["local_process_us_per_transaction"].get<double>());
  EXPECT_DOUBLE_EQ(*d.remote_process_us, rr["remote_process_us_per_transaction"].get<double>());
  EXPECT_DOUBLE_EQ(*d.local_host_us, rr["local_host_us_per_transaction"].get<double>());
  EXPECT_DOUBLE_EQ(*d.remote_host_us, rr["remote_host_us_per_transaction"].get<double>());
  const nlohmann::json shown = RrSummaryWithDemand(run);
  for (const char* member : kRrDemandMembers) {
    EXPECT_DOUBLE_EQ(shown[member].get<double>(), rr[member].get<double>()) << member;
  }
  // The recorded rate reads back as it was (to the bit); the seconds it was counted over, which
  // this record predates, are written beside it now.
  nlohmann::json local = shown["local"];
  EXPECT_NEAR(local["seconds"].get<double>(), 2.0, 0.01);
  local.erase("seconds");
  EXPECT_EQ(local, rr["local"]);
  EXPECT_EQ(shown["peer_transactions"], rr["peer_transactions"]);
}

TEST(RrServiceDemand, AServersRecordComputesItsOwnEndOnly) {
  nlohmann::json j = RecordedRrSpinRun();
  for (const char* member : kRrDemandMembers) j["rr"].erase(member);
  record::RunRecord run = ReadRrSpinRecord(j);
  run.local.role = record::Role::kServer;
  const RrServiceDemand d = ComputeRrServiceDemand(run);
  EXPECT_TRUE(d.local_process_us);
  EXPECT_TRUE(d.local_host_us);
  EXPECT_FALSE(d.remote_process_us) << "as a server's record always showed it";
  EXPECT_FALSE(d.remote_host_us);
  run.rr.reset();
  EXPECT_FALSE(ComputeRrServiceDemand(run).local_process_us) << "a bulk test";
}

}  // namespace
}  // namespace nicbench::analysis
