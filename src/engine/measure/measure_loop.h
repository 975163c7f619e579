// MeasureLoop: the measuring part of a test, the same on both ends. It waits for the next interval
// boundary or an event, snapshots the flows, has the host sampled over the same interval,
// closes the interval and decides when the counted window ends. What differs between the
// client and the server is a small MeasureRole (which control events arrive, who sends the live
// samples, what a stall or a stop tells the peer) and MeasureLoopOptions::ender (who decides the
// end).
//
// Time, the wait and the flows come in through seams (Clock, LoopWaiter, LoopFlows) and the host
// through HostObserver's FileSource, so a unit test drives a whole test with a FakeClock, made-up
// counters and a captured /proc tree (measure_loop_test.cc).
//
// The two roles are conversation/client_role.h and conversation/server_role.h.
//
// A new kind of test (request/response, say) reuses the loop as it is: its flows are DataPath
// flows whose FlowCounters carry its own counts, IntervalSampler turns those into intervals, and
// its end rule is one of the two below.
//
// Thread safety: one loop, its EndRun and its role belong to one controller thread.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "engine/datapath/data_path.h"
#include "engine/measure/cpu_meter.h"
#include "engine/measure/flow_readings.h"
#include "engine/measure/host_observer.h"
#include "engine/measure/interval_sampler.h"
#include "engine/measure/loop_waiter.h"
#include "net/unique_fd.h"
#include "record/run_record.h"
#include "record/test_spec.h"

namespace nicbench::engine {

// A test's final interval that the peer's end (TEST_END) left open: it closes at `at` once the
// last bytes are counted (CloseAtPeerEnd).
struct PeerEnd {
  MonoTime at{};
  bool pending = false;  // the counted window was still open at TEST_END
  bool keep = true;      // false: a final sliver, counted in the totals but not kept
};

// What one end keeps per test, the client and the server alike. Each end's own state derives
// from it (client_run.h ClientRun, server_session.cc ServerSession::State).
struct EndRun {
  // Every time this end reads (deadlines, the loop). Tests that run the loop alone pass their
  // FakeClock to MeasureLoop instead.
  const Clock* clock = &SteadyClock::Instance();
  record::TestSpec spec;                  // the effective spec
  std::vector<StreamRole> streams;        // this end's view of each stream, in connection order
  std::vector<net::UniqueFd> stream_fds;  // connected, until the DataPath takes them
  // This end's controller and workers: its CPU figures are theirs (the main job runs both ends
  // in one process). Declared before `path`, whose workers leave it as they end.
  std::shared_ptr<probes::OwnThreads> threads = std::make_shared<probes::OwnThreads>();
  std::unique_ptr<DataPath> path;
  std::shared_ptr<FileTransfer> file;  // -F, shared by the test's streams; null without it
  record::RunRecord record;
  std::vector<FlowTotals> totals;  // this end's per-stream totals once the loop ended
  CpuMeter cpu;
  std::string congestion_used;
  std::optional<HostObserver> host;        // created before the data starts
  std::optional<IntervalSampler> sampler;  // created when the loop starts
  PeerEnd peer_end;
};

// The flows as the loop reads them.
class LoopFlows {
 public:
  virtual ~LoopFlows() = default;
  // Cumulative counters of every flow, now.
  virtual std::vector<FlowCounters> Snapshot() = 0;
  // For a final reading: adds what the kernel already accepted for the receivers.
  virtual void AddQueued(std::vector<FlowCounters>& counters) = 0;
  virtual TcpInfoByFlow TcpInfos() = 0;
};

// A running DataPath's flows (AddQueuedBytes, ReadTcpInfos).
class DataPathFlows final : public LoopFlows {
 public:
  DataPathFlows(const DataPath& path, const std::vector<StreamRole>& streams,
                record::Transport transport)
      : path_(path), streams_(streams), transport_(transport) {}
  std::vector<FlowCounters> Snapshot() override { return path_.Snapshot(); }
  void AddQueued(std::vector<FlowCounters>& counters) override {
    AddQueuedBytes(path_, transport_, counters);
  }
  TcpInfoByFlow TcpInfos() override { return ReadTcpInfos(path_, streams_, transport_); }

 private:
  const DataPath& path_;
  const std::vector<StreamRole>& streams_;
  record::Transport transport_;
};

// What one end does differently. Each hook that returns a Status failing ends the test with it.
class MeasureRole {
 public:
  enum class Control { kContinue, kPeerEnded };
  virtual ~MeasureRole() = default;
  // The control connection is readable: read what came. kPeerEnded: the peer ended the test
  // (TEST_END, on the server).
  virtual Result<Control> OnControl(MonoTime now) = 0;
  // The user or the server stops the test; tells the peer as this end does.
  virtual Status OnStop() = 0;
  // No byte moved for `limit`; tells the peer as this end does.
  virtual Status OnStall(std::chrono::milliseconds limit) = 0;
  // After every wake-up but a stop, before anything is read: a failing Status ends the test
  // (a -F file call failed: the disk is full, an I/O error).
  virtual Status OnWake() { return Ok(); }
  // MeasureLoopOptions::give_up_after passed without the peer's end (the server's safety timer).
  virtual Status OnGiveUp() { return Fail("the peer never ended the test"); }
  // At each boundary before its interval closes (the server's total-rate limit).
  virtual Status AtBoundary(MonoTime, const std::vector<FlowCounters>&) { return Ok(); }
  // An interval closed: `closed` null when it was a final sliver (not kept); `sample` this
  // host's sample of it; `last` when it ends the counted window.
  virtual void OnClosed(const record::IntervalRecord* closed, const record::HostInterval* sample,
                        bool last) = 0;
};

struct MeasureLoopOptions {
  enum class Ender {
    // This end decides (the client): the timed window's end, its senders' budget (the done
    // event) or, with receivers in a -n/-k test, their byte or block count (polled).
    kSelf,
    // The peer decides (the server): a timed window's last interval closes on our own clock so
    // both ends count the same length of time, then the loop waits for the peer's end.
    kPeer,
  };
  Ender ender = Ender::kSelf;
  std::chrono::milliseconds stall_limit{0};  // 0 = never (--rcv-timeout)
  // Before any byte has moved, a stall ends the test after this when it is shorter (0 = only
  // stall_limit): StallWatch.
  std::chrono::milliseconds first_data_limit{0};
  // kPeer: fail (OnGiveUp) this long after the start without the peer's end; 0 = never.
  std::chrono::milliseconds give_up_after{0};
  // A failure mid-test closes the interval in progress and keeps the totals so far.
  bool keep_measured_on_failure = false;
  // IntervalSampler::SetIntervalBuckets.
  bool interval_latency_buckets = false;
};

// How often an end that decides a byte/block test checks its receivers' counts. A backstop:
// the receiver that meets them wakes the loop through the done event at once (flow_budget.h).
inline constexpr std::chrono::milliseconds kReceiveBudgetPoll{5};

class MeasureLoop {
 public:
  // REQUIRES: run.host is set and Begin() was called; the flows are running. Every reference
  // must outlive the loop.
  MeasureLoop(EndRun& run, const MeasureLoopOptions& options, const Clock& clock,
              LoopWaiter& waiter, LoopFlows& flows, MeasureRole& role);

  // Runs from now until the end. On return run.sampler holds the intervals; when this end
  // decided the end (or a failure kept what was measured), run.totals, record.intervals and
  // record.test_seconds are filled too. After the peer's end, run.peer_end says what is left
  // for CloseAtPeerEnd.
  Status Run();

 private:
  MonoTime BoundaryAfter(MonoTime t) const;
  bool KeepFinal(MonoTime t) const;
  bool SelfFinished(MonoTime t, LoopWaiter::Wake woke, const std::vector<FlowCounters>& c) const;
  // Closes the interval ending at t (the counted window's last when `finished` or past its end).
  Status Close(MonoTime t, std::vector<FlowCounters>& counters, bool finished);
  Status Failure(Status failure);

  EndRun& run_;
  MeasureLoopOptions options_;
  const Clock& clock_;
  LoopWaiter& waiter_;
  LoopFlows& flows_;
  MeasureRole& role_;
  IntervalSchedule schedule_;
  bool by_time_;
  bool poll_receive_;
  MonoTime start_{}, counted_end_{}, give_up_at_{}, boundary_{}, last_close_{};
  bool counting_ = true;
};

// Takes the sampler's totals, intervals and measured seconds into run.
void TakeTotals(EndRun& run);

// After the peer's end: closes the pending final interval with the final counters (the
// DataPath stopped, queued bytes added) and takes the totals.
void CloseAtPeerEnd(EndRun& run, const std::vector<FlowCounters>& counters,
                    const TcpInfoByFlow& infos);

}  // namespace nicbench::engine
