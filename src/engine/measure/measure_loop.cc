#include "engine/measure/measure_loop.h"

#include <algorithm>

#include "engine/measure/stall_watch.h"

namespace nicbench::engine {
namespace {

using std::chrono::milliseconds;

bool HasReceivers(const std::vector<StreamRole>& streams) {
  return std::any_of(streams.begin(), streams.end(), [](const StreamRole& s) { return !s.sender; });
}

// True when the receive side of a byte/block test has what it asked for (iperf3 ends a -n test
// on bytes sent OR received, so `-R -n` ends here).
bool ReceiveBudgetMet(const record::TestSpec& spec, const std::vector<FlowCounters>& counters) {
  uint64_t bytes = 0, blocks = 0;
  for (const FlowCounters& c : counters) {
    if (c.sender) continue;
    bytes += c.bytes;
    blocks += c.blocks;
  }
  return (spec.bytes != 0 && bytes >= spec.bytes) || (spec.blocks != 0 && blocks >= spec.blocks);
}

}  // namespace

MeasureLoop::MeasureLoop(EndRun& run, const MeasureLoopOptions& options, const Clock& clock,
                         LoopWaiter& waiter, LoopFlows& flows, MeasureRole& role)
    : run_(run),
      options_(options),
      clock_(clock),
      waiter_(waiter),
      flows_(flows),
      role_(role),
      schedule_(run.spec.interval, run.spec.omit),
      by_time_(run.spec.bytes == 0 && run.spec.blocks == 0),
      poll_receive_(options.ender == MeasureLoopOptions::Ender::kSelf && !by_time_ &&
                    HasReceivers(run.streams)) {}

// The next boundary is kept across wake-ups and moves on only when an interval closes: a
// wake-up just before it (a live sample, the receive poll) must not let it slip by. A timed
// test's counted window closes on this end's own clock, as a boundary.
MonoTime MeasureLoop::BoundaryAfter(MonoTime t) const {
  auto next = schedule_.NextAfter(std::chrono::duration_cast<milliseconds>(t - start_));
  return std::min(next ? start_ + *next : MonoTime::max(), counted_end_);
}

// A final interval shorter than a tenth of the interval goes into the totals but is not kept
// (iperf3 does not print it either), unless it is the only one, or the test is RR: the client
// counts the server's transactions from the server's kept intervals, so a dropped sliver would
// make a test by count end with unequal counts (seen: 2,737 of 3,000 when a loaded host
// stretched a 3,000-transaction test past its first second).
bool MeasureLoop::KeepFinal(MonoTime t) const {
  return run_.spec.interval.count() == 0 || last_close_ == start_ || run_.spec.rr.enabled() ||
         t - last_close_ >= run_.spec.interval / 10;
}

bool MeasureLoop::SelfFinished(MonoTime t, LoopWaiter::Wake woke,
                               const std::vector<FlowCounters>& counters) const {
  if (options_.ender != MeasureLoopOptions::Ender::kSelf) return false;
  return (by_time_ && t >= counted_end_) || woke == LoopWaiter::Wake::kDone ||
         (poll_receive_ && ReceiveBudgetMet(run_.spec, counters));
}

Status MeasureLoop::Close(MonoTime t, std::vector<FlowCounters>& counters, bool finished) {
  if (auto s = role_.AtBoundary(t, counters); !s) return s;
  const bool last = finished || t >= counted_end_;
  if (last && by_time_) flows_.AddQueued(counters);
  IntervalSampler& sampler = *run_.sampler;
  // A boundary reached late (the controller woke late on a busy host) still ends its interval
  // on the grid, and a timed test's window at its duration: the sampler interpolates.
  const MonoTime at = t >= boundary_ ? boundary_ : t;
  const record::IntervalRecord* closed =
      sampler.CloseAt(at, t, counters, flows_.TcpInfos(), !last || KeepFinal(at));
  run_.host->OnBoundary(closed);
  BoundRecordOnce(sampler, *run_.host, closed);
  role_.OnClosed(closed, run_.host->last(), last);
  last_close_ = at;
  counting_ = !last;
  boundary_ = counting_ ? BoundaryAfter(t) : MonoTime::max();
  return Ok();
}

// A failure or an interrupt mid-test keeps what was measured when asked: the interval in
// progress is closed at the moment of the failure and the totals so far go into the record.
Status MeasureLoop::Failure(Status failure) {
  if (!options_.keep_measured_on_failure) return failure;
  if (counting_) {
    auto counters = flows_.Snapshot();
    run_.host->OnBoundary(run_.sampler->Close(clock_.Now(), counters, flows_.TcpInfos()));
  }
  TakeTotals(run_);
  return failure;
}

Status MeasureLoop::Run() {
  start_ = last_close_ = clock_.Now();
  run_.sampler.emplace(start_, run_.spec.omit, run_.spec.transport);
  run_.sampler->SetIntervalBuckets(options_.interval_latency_buckets);
  // -t 0 (as iperf3's): no end of its own; the client's stop (SIGINT) or the peer ends it.
  counted_end_ = by_time_ && run_.spec.duration.count() > 0
                     ? start_ + run_.spec.omit + run_.spec.duration
                     : MonoTime::max();
  give_up_at_ =
      options_.give_up_after.count() > 0 ? start_ + options_.give_up_after : MonoTime::max();
  boundary_ = BoundaryAfter(start_);
  StallWatch stall(start_, options_.stall_limit, options_.first_data_limit);
  for (;;) {
    MonoTime wake = std::min({boundary_, give_up_at_, stall.deadline()});
    if (poll_receive_) wake = std::min(wake, clock_.Now() + kReceiveBudgetPoll);
    auto woke = waiter_.Wait(wake);
    if (!woke) return Failure(tl::unexpected(woke.error()));
    const MonoTime t = clock_.Now();
    if (*woke == LoopWaiter::Wake::kStop) return Failure(role_.OnStop());
    if (auto s = role_.OnWake(); !s) return Failure(s);
    if (*woke == LoopWaiter::Wake::kControl) {
      // Anything but the peer's end (a live sample, say) goes on to the boundary check below,
      // which may be due: the server's clock leads the client's by the control path's delay,
      // so its samples come just before the client's boundaries.
      auto control = role_.OnControl(t);
      if (!control) return Failure(tl::unexpected(control.error()));
      if (*control == MeasureRole::Control::kPeerEnded) {
        run_.peer_end = PeerEnd{t, counting_, KeepFinal(t)};
        return Ok();
      }
    }
    auto counters = flows_.Snapshot();
    if (stall.Stalled(t, counters)) return Failure(role_.OnStall(stall.limit()));
    if (t >= give_up_at_) return Failure(role_.OnGiveUp());
    const bool finished = SelfFinished(t, *woke, counters);
    if (counting_ && (t >= boundary_ || finished)) {
      if (auto s = Close(t, counters, finished); !s) return Failure(s);
    }
    if (finished) break;
  }
  TakeTotals(run_);
  return Ok();
}

void TakeTotals(EndRun& run) {
  run.totals = run.sampler->Totals();
  run.record.intervals = run.sampler->TakeIntervals();
  run.record.test_seconds = run.sampler->MeasuredSeconds();
}

void CloseAtPeerEnd(EndRun& run, const std::vector<FlowCounters>& counters,
                    const TcpInfoByFlow& infos) {
  if (run.peer_end.pending) {
    run.host->OnBoundary(run.sampler->Close(run.peer_end.at, counters, infos, run.peer_end.keep));
  }
  TakeTotals(run);
}

}  // namespace nicbench::engine
