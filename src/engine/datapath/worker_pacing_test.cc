// The paced workers' timer (engine/datapath/worker.h PacingTimerSpec) and a paced request/
// response client's schedule (rr_flow.h RateGate): the ticks and the first start fall half a
// period off the interval boundaries and the data's start, where both ends sample their hosts.
#include <gtest/gtest.h>

#include "engine/datapath/rr_flow.h"
#include "engine/datapath/worker.h"

namespace nicbench::engine {
namespace {

TEST(PacingTimerSpec, EveryPeriodTheFirstTickHalfAPeriodIn) {
  // A monitor's probes at 10 a second tick every 50 ms: at 25, 75, 125 ... ms, so never on a
  // whole second (an interval boundary).
  const itimerspec probe = PacingTimerSpec(50000);
  EXPECT_EQ(probe.it_interval.tv_sec, 0);
  EXPECT_EQ(probe.it_interval.tv_nsec, 50'000'000);
  EXPECT_EQ(probe.it_value.tv_sec, 0);
  EXPECT_EQ(probe.it_value.tv_nsec, 25'000'000);
  const itimerspec slow = PacingTimerSpec(3'000'000);
  EXPECT_EQ(slow.it_interval.tv_sec, 3);
  EXPECT_EQ(slow.it_value.tv_sec, 1);
  EXPECT_EQ(slow.it_value.tv_nsec, 500'000'000);
  // The shortest period still arms the timer (a zero it_value would disarm it).
  const itimerspec shortest = PacingTimerSpec(1);
  EXPECT_EQ(shortest.it_interval.tv_nsec, 1000);
  EXPECT_EQ(shortest.it_value.tv_nsec, 500);
}

// The first transaction of a paced request/response test waits half a period (both ends take
// their first host snapshot as the data starts); then one every period.
TEST(RateGate, FirstStartHalfAPeriodAfterTheFirstTryThenEveryPeriod) {
  RateGate gate(10);  // 100 ms
  const uint64_t t0 = 1'000'000'000;
  EXPECT_FALSE(gate.Take(t0));
  EXPECT_FALSE(gate.Take(t0 + 49'000'000));
  EXPECT_TRUE(gate.Take(t0 + 50'000'000));
  EXPECT_FALSE(gate.Take(t0 + 100'000'000));
  EXPECT_TRUE(gate.Take(t0 + 150'000'000));
  EXPECT_TRUE(RateGate(0).Take(t0));  // not paced: always
}

}  // namespace
}  // namespace nicbench::engine
