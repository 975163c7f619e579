// The test loop on a FakeClock: scripted wake-ups (FakeWaiter), flows whose counters grow with
// the fake time (FakeFlows, 1 byte per microsecond), a role that records what it is told, and
// the host sampled from a captured /proc and /sys tree. Each case is a timing bug the loop had
// or could have.
#include "engine/measure/measure_loop.h"

#include <deque>

#include <gtest/gtest.h>

#include "probes/file_source.h"
#include "support/run_binary.h"

namespace nicbench::engine {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using Wake = LoopWaiter::Wake;

// Wake-ups at scripted times; the timer fires `timer_late` after the time asked for (an event
// due by then wins, as in the real epoll set).
class FakeWaiter final : public LoopWaiter {
 public:
  FakeWaiter(FakeClock& clock, MonoTime t0) : clock_(clock), t0_(t0) {}
  void At(microseconds at, Wake wake) { events_.push_back({at, wake}); }
  microseconds timer_late{0};

  Result<Wake> Wait(MonoTime until) override {
    // A loop that stops moving time on (waits for a time already past, again and again) fails
    // instead of hanging the test.
    if (++waits_ > 100'000) return Fail("the loop spins");
    const MonoTime fire = until == MonoTime::max() ? until : until + timer_late;
    if (!events_.empty() && t0_ + events_.front().first <= fire) {
      clock_.Set(t0_ + events_.front().first);
      const Wake wake = events_.front().second;
      events_.pop_front();
      return wake;
    }
    if (fire == MonoTime::max()) return Fail("the loop would wait forever");
    clock_.Set(fire);
    return Wake::kTimer;
  }

 private:
  FakeClock& clock_;
  MonoTime t0_;
  std::deque<std::pair<microseconds, Wake>> events_;
  int waits_ = 0;
};

// One flow moving a byte per microsecond of fake time until `stall_at`.
class FakeFlows final : public LoopFlows {
 public:
  FakeFlows(const FakeClock& clock, MonoTime t0, bool sender)
      : clock_(clock), t0_(t0), sender_(sender) {}
  microseconds stall_at = microseconds::max();
  uint64_t queued = 0;  // what AddQueued adds to a receiver

  std::vector<FlowCounters> Snapshot() override {
    FlowCounters c;
    c.id = 1;
    c.sender = sender_;
    const auto elapsed = std::chrono::duration_cast<microseconds>(clock_.Now() - t0_);
    c.bytes = static_cast<uint64_t>(std::min(elapsed, stall_at).count());
    c.blocks = c.bytes / 1000;
    return {c};
  }
  void AddQueued(std::vector<FlowCounters>& counters) override {
    for (FlowCounters& c : counters) c.bytes += c.sender ? 0 : queued;
  }
  TcpInfoByFlow TcpInfos() override { return {}; }

 private:
  const FakeClock& clock_;
  MonoTime t0_;
  bool sender_;
};

struct Closed {
  bool kept = false;
  bool last = false;
  bool sampled = false;
};

// Records what the loop tells it; control wake-ups answer from `controls` and take
// `control_cost` of fake time (reading a live sample, say).
class FakeRole final : public MeasureRole {
 public:
  explicit FakeRole(FakeClock& clock) : clock_(clock) {}
  std::deque<Control> controls;
  microseconds control_cost{0};
  std::vector<Closed> closed;

  Result<Control> OnControl(MonoTime) override {
    clock_.Advance(control_cost);
    if (controls.empty()) return Fail("unexpected control event");
    const Control c = controls.front();
    controls.pop_front();
    return c;
  }
  Status OnStop() override { return Fail("stopped"); }
  Status OnStall(milliseconds) override { return Fail("stalled"); }
  void OnClosed(const record::IntervalRecord* interval, const record::HostInterval* sample,
                bool last) override {
    closed.push_back({interval != nullptr, last, sample != nullptr});
  }

 private:
  FakeClock& clock_;
};

// One test: its spec and its fakes, the host read from the captured tree of the build VM.
struct LoopCase {
  explicit LoopCase(bool sender = true)
      : t0(clock.Now()), waiter(clock, t0), flows(clock, t0, sender), role(clock) {
    run.streams = {StreamRole{1, sender}};
    run.host.emplace(std::make_unique<probes::DirFileSource>(nicbench::testing::TestdataDir() +
                                                             "/roots/vm-6.18"),
                     Result<std::string>("eth0"), /*sample=*/true);
    run.host->Begin();
  }
  Status Run() { return MeasureLoop(run, options, clock, waiter, flows, role).Run(); }
  // The kept intervals' ends, in seconds of the record (after omit, from 0 again).
  std::vector<double> Ends() const {
    std::vector<double> ends;
    for (const auto& i : run.record.intervals) ends.push_back(i.end);
    return ends;
  }

  FakeClock clock;
  MonoTime t0;
  FakeWaiter waiter;
  FakeFlows flows;
  FakeRole role;
  EndRun run;
  MeasureLoopOptions options;
};

void ExpectEnds(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "interval " << i;
}

TEST(MeasureLoop, TimedTestClosesEachIntervalAndSamplesTheHostOverIt) {
  LoopCase c;
  c.run.spec.duration = milliseconds(3000);
  ASSERT_TRUE(c.Run());
  ExpectEnds(c.Ends(), {1.0, 2.0, 3.0});
  EXPECT_EQ(c.run.totals.at(0).bytes, 3'000'000u);
  EXPECT_DOUBLE_EQ(c.run.record.test_seconds, 3.0);
  record::EndpointRecord end;
  c.run.host->Finish(end);
  ASSERT_EQ(end.samples.size(), 3u);
  EXPECT_DOUBLE_EQ(end.samples[1].start, 1.0);
  EXPECT_DOUBLE_EQ(end.samples[1].end, 2.0);
  EXPECT_TRUE(c.role.closed.back().last);
}

// A live sample read just before a boundary takes us past it: the boundary must still close
// at the next wake-up (the pending-boundary bug let it slip to the one after).
TEST(MeasureLoop, BoundaryJustBeforeAWakeUpIsNotSkipped) {
  LoopCase c;
  c.run.spec.duration = milliseconds(3000);
  c.waiter.At(microseconds(999'000), Wake::kControl);
  c.role.controls = {MeasureRole::Control::kContinue};
  c.role.control_cost = microseconds(2'000);
  ASSERT_TRUE(c.Run());
  ExpectEnds(c.Ends(), {1.0, 2.0, 3.0});  // ends on the grid, counts interpolated
}

// A control event that wins over a late timer closes the boundary that is due.
TEST(MeasureLoop, BoundaryDueAtAControlWakeUpClosesThere) {
  LoopCase c;
  c.run.spec.duration = milliseconds(2000);
  c.waiter.timer_late = microseconds(3'000);
  c.waiter.At(microseconds(1'000'500), Wake::kControl);
  c.role.controls = {MeasureRole::Control::kContinue};
  ASSERT_TRUE(c.Run());
  ExpectEnds(c.Ends(), {1.0, 2.0});  // ends on the grid, counts interpolated
}

TEST(MeasureLoop, ByteBudgetMetJustBeforeABoundaryKeepsTheShortInterval) {
  LoopCase c;
  c.run.spec.bytes = 1'999'000;
  c.waiter.At(microseconds(1'999'000), Wake::kDone);
  ASSERT_TRUE(c.Run());
  ExpectEnds(c.Ends(), {1.0, 1.999});
  EXPECT_EQ(c.run.totals.at(0).bytes, 1'999'000u);
  EXPECT_NEAR(c.run.record.test_seconds, 1.999, 1e-9);
}

// Met just after a boundary: the sliver's bytes count, the sliver is not kept.
TEST(MeasureLoop, ByteBudgetMetJustAfterABoundaryCountsTheSliverWithoutKeepingIt) {
  LoopCase c;
  c.run.spec.bytes = 2'000'500;
  c.waiter.At(microseconds(2'000'500), Wake::kDone);
  ASSERT_TRUE(c.Run());
  ExpectEnds(c.Ends(), {1.0, 2.0});
  EXPECT_EQ(c.run.totals.at(0).bytes, 2'000'500u);
  EXPECT_NEAR(c.run.record.test_seconds, 2.0005, 1e-9);
  ASSERT_EQ(c.role.closed.size(), 3u);
  EXPECT_FALSE(c.role.closed[2].kept);
  EXPECT_TRUE(c.role.closed[2].last);
  record::EndpointRecord end;
  c.run.host->Finish(end);
  EXPECT_EQ(end.samples.size(), 2u);  // the sliver's sample is dropped with it
}

// The server of an RR test by count: its final sliver is kept, since the client sums the
// server's kept intervals into the server's transaction count (a dropped sliver once left it at
// 2,737 of 3,000 on a loaded host).
TEST(MeasureLoop, PeerEndOfAnRrTestKeepsTheFinalSliver) {
  LoopCase c(/*sender=*/false);
  c.options.ender = MeasureLoopOptions::Ender::kPeer;
  c.run.spec.rr.mode = record::RrMode::kRr;
  c.run.spec.blocks = 1'050;
  c.waiter.At(microseconds(1'050'000), Wake::kControl);
  c.role.controls = {MeasureRole::Control::kPeerEnded};
  ASSERT_TRUE(c.Run());
  ASSERT_TRUE(c.run.peer_end.pending);
  CloseAtPeerEnd(c.run, c.flows.Snapshot(), {});
  ExpectEnds(c.Ends(), {1.0, 1.05});
}

// A receiving end of a -n test has no done event: it polls its receivers' count.
TEST(MeasureLoop, ReceiveBudgetEndsAtThePollAfterItIsMet) {
  LoopCase c(/*sender=*/false);
  c.run.spec.bytes = 1'502'000;
  ASSERT_TRUE(c.Run());
  ExpectEnds(c.Ends(), {1.0, 1.505});
  EXPECT_EQ(c.run.totals.at(0).bytes, 1'505'000u);
}

TEST(MeasureLoop, OmittedWarmUpIsFlaggedAndLeftOutOfTheTotals) {
  LoopCase c;
  c.run.spec.omit = milliseconds(1500);
  c.run.spec.duration = milliseconds(2000);
  ASSERT_TRUE(c.Run());
  const auto& intervals = c.run.record.intervals;
  ASSERT_EQ(intervals.size(), 4u);
  EXPECT_TRUE(intervals[0].omitted && intervals[1].omitted);
  EXPECT_FALSE(intervals[2].omitted || intervals[3].omitted);
  ExpectEnds(c.Ends(), {1.0, 1.5, 1.0, 2.0});  // times restart after the warm-up
  EXPECT_EQ(c.run.totals.at(0).bytes, 2'000'000u);
  EXPECT_DOUBLE_EQ(c.run.record.test_seconds, 2.0);
}

// A -n test over within the warm-up counted nothing: no measured time, no bytes (diagnosis
// says so), and its one interval is kept, omitted.
TEST(MeasureLoop, TestEndingWithinTheOmitWindowCountsNothing) {
  LoopCase c;
  c.run.spec.omit = milliseconds(1000);
  c.run.spec.bytes = 500'000;
  c.waiter.At(microseconds(500'000), Wake::kDone);
  ASSERT_TRUE(c.Run());
  ASSERT_EQ(c.run.record.intervals.size(), 1u);
  EXPECT_TRUE(c.run.record.intervals[0].omitted);
  EXPECT_EQ(c.run.totals.at(0).bytes, 0u);
  EXPECT_DOUBLE_EQ(c.run.record.test_seconds, 0.0);
}

// The peer stops sending at 1.5 s: the stall watch sees no movement from the 2 s boundary on
// and ends the test 3 s later, keeping what was measured.
TEST(MeasureLoop, PeerThatStallsEndsTheTestAfterTheLimit) {
  LoopCase c;
  c.run.spec.duration = milliseconds(10000);
  c.options.stall_limit = milliseconds(3000);
  c.options.keep_measured_on_failure = true;
  c.flows.stall_at = microseconds(1'500'000);
  Status s = c.Run();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "stalled");
  ExpectEnds(c.Ends(), {1.0, 2.0, 3.0, 4.0, 5.0});
  EXPECT_EQ(c.run.totals.at(0).bytes, 1'500'000u);
}

TEST(MeasureLoop, StopKeepsTheIntervalInProgressWhenAsked) {
  LoopCase c;
  c.options.keep_measured_on_failure = true;
  c.waiter.At(microseconds(1'250'000), Wake::kStop);
  ASSERT_FALSE(c.Run());
  ExpectEnds(c.Ends(), {1.0, 1.25});
  EXPECT_EQ(c.run.totals.at(0).bytes, 1'250'000u);
}

// The server: its timed window closes on its own clock, then it waits for TEST_END.
TEST(MeasureLoop, PeerEndsATimedTestAfterOurWindowClosed) {
  LoopCase c(/*sender=*/false);
  c.options.ender = MeasureLoopOptions::Ender::kPeer;
  c.run.spec.duration = milliseconds(2000);
  c.waiter.At(microseconds(2'040'000), Wake::kControl);
  c.role.controls = {MeasureRole::Control::kPeerEnded};
  ASSERT_TRUE(c.Run());
  EXPECT_FALSE(c.run.peer_end.pending);
  CloseAtPeerEnd(c.run, c.flows.Snapshot(), {});
  ExpectEnds(c.Ends(), {1.0, 2.0});
  EXPECT_EQ(c.run.totals.at(0).bytes, 2'000'000u);
}

// The server in a -n test: TEST_END leaves the final interval to close with the last bytes.
TEST(MeasureLoop, PeerEndOfAByteTestClosesWithTheFinalCount) {
  LoopCase c(/*sender=*/false);
  c.options.ender = MeasureLoopOptions::Ender::kPeer;
  c.run.spec.bytes = 1'500'000;
  c.waiter.At(microseconds(1'500'000), Wake::kDone);  // not ours to end on
  c.waiter.At(microseconds(1'600'000), Wake::kControl);
  c.role.controls = {MeasureRole::Control::kPeerEnded};
  c.flows.queued = 1'000;
  ASSERT_TRUE(c.Run());
  ASSERT_TRUE(c.run.peer_end.pending);
  auto counters = c.flows.Snapshot();
  c.flows.AddQueued(counters);
  CloseAtPeerEnd(c.run, counters, {});
  ExpectEnds(c.Ends(), {1.0, 1.6});
  EXPECT_EQ(c.run.totals.at(0).bytes, 1'601'000u);
}

TEST(MeasureLoop, PeerThatNeverEndsIsGivenUpOn) {
  LoopCase c(/*sender=*/false);
  c.options.ender = MeasureLoopOptions::Ender::kPeer;
  c.options.give_up_after = milliseconds(3000);
  c.run.spec.duration = milliseconds(2000);
  Status s = c.Run();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "the peer never ended the test");
  EXPECT_TRUE(c.run.record.intervals.empty());  // the server keeps nothing of a failed test
}

}  // namespace
}  // namespace nicbench::engine
