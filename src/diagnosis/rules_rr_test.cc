// The request/response rules on synthetic records: each fires on its evidence and stays quiet
// on a healthy run; the bulk rules do not run for a request/response test.
#include <gtest/gtest.h>

#include <algorithm>

#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"

namespace nicbench::diagnosis {
namespace {

// A healthy 10 s TCP RR test at 20,000 transactions/s with a 45 us median.
record::RunRecord RrRun() {
  record::RunRecord run = testing::MakeRun(20000 * 8.0);
  run.spec.rr.mode = record::RrMode::kRr;
  record::RrSummary s;
  s.local.transactions = 200000;
  s.local.transactions_per_second = 20000;
  s.local.latency = record::LatencySummary{200000, 50, 30, 45, 55, 80, 150, 900};
  s.peer_transactions = 200000;
  run.rr = s;
  return run;
}

bool Has(const std::vector<record::Finding>& findings, const std::string& id) {
  return std::any_of(findings.begin(), findings.end(),
                     [&](const record::Finding& f) { return f.id == id; });
}

TEST(RrRules, HealthyRunHasNoWarningAndNoBulkRule) {
  auto findings = Diagnose(RrRun());
  EXPECT_TRUE(Has(findings, "no-problem-found"));
  EXPECT_FALSE(Has(findings, "far-below-link-rate"));
  EXPECT_FALSE(Has(findings, "link-rate-limited"));
}

TEST(RrRules, SaturatedCoreOfTheServer) {
  record::RunRecord run = RrRun();
  testing::SetCpu(testing::Remote(run), 2, 30, 60, 0, 8);
  auto findings = Diagnose(run);
  ASSERT_TRUE(Has(findings, "rr-core-saturated"));
  EXPECT_FALSE(Has(findings, "no-problem-found"));
  run.spec.rr.spin_us = 50;
  EXPECT_FALSE(Has(Diagnose(run), "rr-core-saturated")) << "--rr-spin keeps the core busy itself";
}

TEST(RrRules, CoalescingOnlyWhenItIsAShareOfTheTransaction) {
  record::RunRecord run = RrRun();
  record::Coalescing c;
  c.rx_usecs = 4;
  run.local.nic.coalescing = c;
  testing::Remote(run).nic.coalescing = c;
  EXPECT_FALSE(Has(Diagnose(run), "rr-interrupt-coalescing")) << "8 us of a 45 us median";
  c.rx_usecs = 50;
  run.local.nic.coalescing = c;
  testing::Remote(run).nic.coalescing = c;
  EXPECT_TRUE(Has(Diagnose(run), "rr-interrupt-coalescing"));
  c.adaptive_rx = true;
  run.local.nic.coalescing = c;
  testing::Remote(run).nic.coalescing = c;
  EXPECT_FALSE(Has(Diagnose(run), "rr-interrupt-coalescing")) << "adaptive moderation adapts";
}

TEST(RrRules, LossAndDisagreeingCounts) {
  record::RunRecord run = RrRun();
  run.rr->local.lost = 12;
  EXPECT_TRUE(Has(Diagnose(run), "rr-loss"));
  run = RrRun();
  run.rr->peer_transactions = 200000 - 9000;  // within the timed test's 5%
  EXPECT_FALSE(Has(Diagnose(run), "rr-counts-disagree"));
  run.rr->peer_transactions = 150000;
  EXPECT_TRUE(Has(Diagnose(run), "rr-counts-disagree"));
  run.spec.blocks = 200000;  // by count: exact
  run.rr->peer_transactions = 199990;
  EXPECT_TRUE(Has(Diagnose(run), "rr-counts-disagree"));
}

TEST(RrRules, NoTransactionAtAllIsAWarning) {
  record::RunRecord run = RrRun();
  EXPECT_FALSE(Has(Diagnose(run), "rr-no-transactions"));
  run.rr->local.transactions = 0;
  run.rr->peer_transactions = 0;
  EXPECT_TRUE(Has(Diagnose(run), "rr-no-transactions"));
}

}  // namespace
}  // namespace nicbench::diagnosis
