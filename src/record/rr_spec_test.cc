#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "record/json.h"
#include "record/json_rr.h"
#include "record/test_spec.h"

namespace nicbench::record {
namespace {

TestSpec Rr() {
  TestSpec spec;
  spec.rr.mode = RrMode::kRr;
  return spec;
}

TEST(ValidateRr, DefaultsAreValidAndAThousandFlowsFit) {
  TestSpec spec = Rr();
  EXPECT_FALSE(Validate(spec).has_value());
  spec.parallel = 1000;
  EXPECT_FALSE(Validate(spec).has_value()) << "RR flows have their own limit";
  spec.rr.mode = RrMode::kNone;
  spec.parallel = kMaxParallelStreams + 1;
  EXPECT_TRUE(Validate(spec).has_value()) << "bulk keeps its own limit";
}

TEST(ValidateRr, ServerLimitsApply) {
  SpecLimits limits;
  limits.max_rr_flows = 8;
  limits.max_block_bytes = 1000;
  TestSpec spec = Rr();
  spec.parallel = 9;
  EXPECT_EQ(Validate(spec, limits)->violation, SpecViolation::kParallel);
  spec.parallel = 8;
  spec.rr.response_bytes = 1001;
  EXPECT_EQ(Validate(spec, limits)->violation, SpecViolation::kBlockSize);
  spec.rr.response_bytes = 1000;
  EXPECT_FALSE(Validate(spec, limits).has_value());
  spec.duration = std::chrono::hours(25);
  EXPECT_EQ(Validate(spec, limits)->violation, SpecViolation::kDuration);
}

TEST(ValidateRr, BadCombinations) {
  auto problem = [](TestSpec spec) {
    auto p = Validate(spec);
    return p ? p->message : std::string();
  };
  TestSpec s = Rr();
  s.rr.request_bytes = 0;
  EXPECT_NE(problem(s).find("at least 1 byte"), std::string::npos);
  s = Rr();
  s.direction = Direction::kBidirectional;
  EXPECT_NE(problem(s).find("--bidir"), std::string::npos);
  s = Rr();
  s.rr.mode = RrMode::kCrr;
  s.transport = Transport::kUdp;
  EXPECT_NE(problem(s).find("TCP only"), std::string::npos);
  s = Rr();
  s.transport = Transport::kUdp;
  s.rr.response_bytes = 65508;
  EXPECT_NE(problem(s).find("65507"), std::string::npos);
  s = Rr();
  s.rr.burst = 0;
  EXPECT_NE(problem(s).find("--rr-burst"), std::string::npos);
  s = Rr();
  s.rr.spin_us = kMaxRrSpinUs;
  EXPECT_EQ(problem(s), "");
  s.rr.spin_us = kMaxRrSpinUs + 1;
  EXPECT_NE(problem(s).find("--rr-spin 10001 us out of range 0..10000"), std::string::npos);
  s = Rr();
  s.bytes = 100;
  EXPECT_NE(problem(s).find("transactions"), std::string::npos);
}

TEST(RrJson, SpecIntervalAndSummaryRoundTrip) {
  TestSpec spec = Rr();
  spec.rr.request_bytes = 10;
  spec.rr.response_bytes = 20;
  spec.rr.burst = 3;
  EXPECT_FALSE(nlohmann::json(spec)["rr"].contains("spin_us")) << "records before --rr-spin";
  EXPECT_EQ(nlohmann::json(spec).get<TestSpec>().rr.spin_us, 0u);
  spec.rr.spin_us = 25;
  TestSpec back = nlohmann::json(spec).get<TestSpec>();
  EXPECT_EQ(back.rr.spin_us, 25u);
  EXPECT_EQ(back.rr.mode, RrMode::kRr);
  EXPECT_EQ(back.rr.response_bytes, 20u);
  EXPECT_EQ(back.rr.burst, 3u);
  EXPECT_FALSE(nlohmann::json(TestSpec{}).contains("rr")) << "a bulk spec keeps its shape";

  IntervalRecord interval;
  RrStats rr;
  rr.transactions = 5;
  rr.latency = LatencySummary{5, 10, 1, 9, 11, 12, 13, 14};
  interval.rr = rr;
  IntervalRecord read = nlohmann::json(interval).get<IntervalRecord>();
  ASSERT_TRUE(read.rr.has_value());
  EXPECT_EQ(read.rr->transactions, 5u);
  EXPECT_DOUBLE_EQ(read.rr->latency->p99_us, 12);
  EXPECT_FALSE(read.rr->connect.has_value());

  RrSummary summary;
  summary.local = rr;
  summary.peer_transactions = 5;
  RrSummary again = nlohmann::json(summary).get<RrSummary>();
  EXPECT_EQ(again.peer_transactions.value(), 5u);
  EXPECT_FALSE(again.local_host_us_per_transaction.has_value());
}

}  // namespace
}  // namespace nicbench::record
