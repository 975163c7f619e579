#include "record/test_spec.h"

#include <gtest/gtest.h>

#include "record/facts.h"
#include "record/run_record.h"

namespace nicbench::record {
namespace {

TEST(Validate, DefaultSpecIsValid) { EXPECT_FALSE(Validate(TestSpec{}).has_value()); }

TEST(Validate, ParallelOutOfRange) {
  TestSpec spec;
  spec.parallel = kMaxParallelStreams + 1;
  auto error = Validate(spec);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->violation, SpecViolation::kParallel);
  spec.parallel = 0;
  EXPECT_TRUE(Validate(spec).has_value());
}

TEST(Validate, ServerLimitsApply) {
  SpecLimits limits;
  limits.max_duration = std::chrono::seconds(30);
  limits.max_rate_bits_per_second = 1000000;
  TestSpec spec;
  spec.duration = std::chrono::seconds(60);
  EXPECT_EQ(Validate(spec, limits)->violation, SpecViolation::kDuration);
  spec.duration = std::chrono::seconds(10);
  EXPECT_EQ(Validate(spec, limits)->violation, SpecViolation::kRate);  // unlimited asked
  spec.rate_bits_per_second = 500000;
  EXPECT_FALSE(Validate(spec, limits).has_value());
}

TEST(Validate, UdpOffloadIsForUdpOnly) {
  TestSpec spec;
  spec.udp_offload = true;
  ASSERT_TRUE(Validate(spec).has_value());
  EXPECT_EQ(Validate(spec)->message, "--udp-offload applies to UDP tests only (-u)");
  spec.transport = Transport::kUdp;
  EXPECT_FALSE(Validate(spec).has_value());
}

TEST(Validate, UdpBlockNeedsRoomForHeader) {
  TestSpec spec;
  spec.transport = Transport::kUdp;
  spec.block_bytes = 8;
  EXPECT_EQ(Validate(spec)->violation, SpecViolation::kBlockSize);
  spec.block_bytes = 12;
  EXPECT_FALSE(Validate(spec).has_value());
  spec.udp_counters_64bit = true;
  EXPECT_TRUE(Validate(spec).has_value());
}

TEST(Measured, UnknownCarriesReason) {
  Measured<uint64_t> speed = Measured<uint64_t>::Unknown(Missing::kPermissionDenied, "needs root");
  EXPECT_FALSE(speed.known());
  EXPECT_EQ(speed.why(), Missing::kPermissionDenied);
  EXPECT_STREQ(MissingName(speed.why()), "permission denied");
  Measured<uint64_t> known = 1000u;
  EXPECT_TRUE(known.known());
  EXPECT_EQ(known.value(), 1000u);
}

}  // namespace
}  // namespace nicbench::record
