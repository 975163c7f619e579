// Bug: on a busy host (--bidir: both ends' workers on two CPUs) the controller thread woke up to
// a third of a second after a boundary, and each interval ended where it woke:
// `0.00-1.00 1.00-2.33 2.33-3.00`, with a total of `0.00-3.20` for `-t 3`. The intervals now
// end on the one-second grid and the total covers -t, the counts interpolated to the boundary.
// Driven on a FakeClock whose timer fires late, one flow moving a byte per microsecond.
#include <chrono>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "engine/measure/measure_loop.h"
#include "probes/file_source.h"
#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

using engine::FlowCounters;
using engine::LoopWaiter;
using engine::MeasureRole;
using std::chrono::microseconds;
using std::chrono::milliseconds;

// Every timer fires `late` after the time asked for; nothing else wakes the loop.
class LateTimer final : public LoopWaiter {
 public:
  LateTimer(FakeClock& clock, microseconds late) : clock_(clock), late_(late) {}
  Result<Wake> Wait(MonoTime until) override {
    if (until == MonoTime::max() || ++waits_ > 1000) return Fail("the loop would not end");
    clock_.Set(until + late_);
    return Wake::kTimer;
  }

 private:
  FakeClock& clock_;
  microseconds late_;
  int waits_ = 0;
};

class BytePerMicrosecond final : public engine::LoopFlows {
 public:
  BytePerMicrosecond(const FakeClock& clock, MonoTime t0) : clock_(clock), t0_(t0) {}
  std::vector<FlowCounters> Snapshot() override {
    FlowCounters c;
    c.id = 1;
    c.sender = true;
    c.bytes =
        static_cast<uint64_t>(std::chrono::duration_cast<microseconds>(clock_.Now() - t0_).count());
    return {c};
  }
  void AddQueued(std::vector<FlowCounters>&) override {}
  engine::TcpInfoByFlow TcpInfos() override { return {}; }

 private:
  const FakeClock& clock_;
  MonoTime t0_;
};

class QuietRole final : public MeasureRole {
 public:
  Result<Control> OnControl(MonoTime) override { return Fail("no control events here"); }
  Status OnStop() override { return Fail("stopped"); }
  Status OnStall(milliseconds) override { return Fail("stalled"); }
  void OnClosed(const record::IntervalRecord*, const record::HostInterval*, bool) override {}
};

TEST(BidirIntervalsOffTheGrid, LateWakeUpsStillEndEachIntervalOnTheGrid) {
  FakeClock clock;
  const MonoTime t0 = clock.Now();
  LateTimer waiter(clock, microseconds(330'000));
  BytePerMicrosecond flows(clock, t0);
  QuietRole role;
  engine::EndRun run;
  run.streams = {engine::StreamRole{1, true}};
  run.spec.duration = milliseconds(3000);
  run.host.emplace(
      std::make_unique<probes::DirFileSource>(nicbench::testing::TestdataDir() + "/roots/vm-6.18"),
      Result<std::string>("eth0"), /*sample=*/true);
  run.host->Begin();
  engine::MeasureLoopOptions options;
  ASSERT_TRUE(engine::MeasureLoop(run, options, clock, waiter, flows, role).Run());

  ASSERT_EQ(run.record.intervals.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(run.record.intervals[i].start, static_cast<double>(i), 1e-9) << i;
    EXPECT_NEAR(run.record.intervals[i].end, static_cast<double>(i + 1), 1e-9) << i;
    // A byte per microsecond: each second holds its million bytes, whenever it was read.
    EXPECT_NEAR(static_cast<double>(run.record.intervals[i].streams.at(0).bytes), 1e6, 2) << i;
  }
  EXPECT_DOUBLE_EQ(run.record.test_seconds, 3.0);
  EXPECT_NEAR(static_cast<double>(run.totals.at(0).bytes), 3e6, 2);
}

}  // namespace
}  // namespace nicbench::regress
