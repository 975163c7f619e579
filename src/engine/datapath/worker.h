// Worker: one thread running one epoll loop over the flows it was given (neper's thread.c /
// loop.c shape). Level-triggered: a sender stays on EPOLLOUT and writes until EAGAIN, a
// receiver on EPOLLIN. Paced senders sleep on one timerfd per worker instead of spinning.
// A worker with many bulk senders lets only a few send at a time (engine/turn_window.h).
// Stop is an eventfd in the loop; a flow alone on its worker that can run in blocking calls
// (UDP bulk flows, Flow::RunBlocking) does so instead, and sees Stop through the stopping flag.
// The thread body catches everything, so a worker never dies silently: its failure goes to
// RunContext and DataPath::Join returns it.
//
// Thread safety: Add/Start/Stop/Join are called by the controller; the flows are touched only
// by the worker's thread between Start and Join.
#pragma once

#include <sys/timerfd.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "base/result.h"
#include "engine/datapath/flow.h"
#include "engine/datapath/flow_budget.h"
#include "engine/datapath/flow_payload.h"
#include "engine/datapath/turn_window.h"
#include "net/sys_calls.h"
#include "net/unique_fd.h"
#include "probes/own_threads.h"

namespace nicbench::engine {

// State shared by the workers of one DataPath. No mutable globals: one of these per run.
class RunContext {
 public:
  explicit RunContext(net::SysCalls* sys) : sys_(sys) {}

  // The end's own threads, which each worker enters as it starts and leaves as it ends (null:
  // none kept). REQUIRES: before the workers start.
  void set_threads(std::shared_ptr<probes::OwnThreads> threads) { threads_ = std::move(threads); }
  probes::OwnThreads* threads() const { return threads_.get(); }

  FlowEnv env() { return FlowEnv{sys_, &budget_, &stopping_, &payloads_}; }
  SharedBudget& budget() { return budget_; }
  PayloadCache* payloads() { return &payloads_; }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  void MarkStopping() { stopping_.store(true, std::memory_order_release); }

  // Arms the completion signal: `done_fd` (an eventfd) is written once `senders` flows have
  // finished. With no senders it is never written.
  void ArmDone(int done_fd, int senders) {
    done_fd_ = done_fd;
    senders_left_.store(senders, std::memory_order_relaxed);
  }
  // A sender met the budget, failed, or was closed.
  void SenderFinished();

  // Keeps the first failure (in time) of any worker; later ones are logged and dropped.
  void ReportError(Error error);
  std::optional<Error> first_error() const;
  bool failed() const { return failed_.load(std::memory_order_acquire); }

 private:
  net::SysCalls* const sys_;
  std::shared_ptr<probes::OwnThreads> threads_;
  SharedBudget budget_;
  PayloadCache payloads_;  // touched by AddFlow on the controller thread only
  std::atomic<bool> stopping_{false};
  std::atomic<int> senders_left_{0};
  int done_fd_ = -1;
  mutable std::mutex error_mu_;  // taken only when a worker fails, never on the data path
  std::optional<Error> first_error_;
  int more_errors_ = 0;  // after the first: counted, not logged (see ReportError)
  std::atomic<bool> failed_{false};
};

// The timerfd setting of a worker whose paced flows tick every `period_us`: every period, the
// first tick half a period after the start. Each end's controller samples its host at the
// interval boundaries, whole intervals after (nearly) the moment the workers start: ticks on
// them would send the probe that falls on a boundary while both ends read /proc, and at 10
// probes a second in 50 ms ticks every tenth probe of a monitor's window came 1-2.5 ms late on
// an idle path of 0.1 ms (docs/monitor.md, "What the stand tests show"). Half a period off, a
// tick is never nearer a boundary than that.
itimerspec PacingTimerSpec(uint32_t period_us);

class Worker {
 public:
  Worker(int index, RunContext* run) : index_(index), run_(run), buffers_(index, run->payloads()) {}
  ~Worker();  // REQUIRES: Join() was called if Start() was
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Takes the flow into this worker's loop and lends it the worker's buffers (Flow::Attach);
  // fails only when a buffer cannot be made. REQUIRES: before Start; the flow outlives the
  // worker.
  Status Add(Flow* flow);
  Status Start();  // creates the epoll set, eventfd and timerfd, then the thread
  void Stop();     // wakes the loop; idempotent; safe before Start
  void Join();     // waits for the thread; idempotent

 private:
  struct Slot {
    Flow* flow = nullptr;
    uint32_t registered = 0;  // events currently in the epoll set
    bool active = true;
    bool takes_turns = false;  // one of the senders the turn window rotates
    uint64_t turn_start = 0;   // moved_bytes() when its current turn began
  };

  void Run() noexcept;
  Status Loop();
  // A flow alone on this worker that blocks when alone (Flow::BlocksWhenAlone) runs in its own
  // blocking calls instead of the loop: its socket never enters the epoll set.
  Status RunAlone();
  Status Register();
  // With more than kTurnWindowAbove bulk senders, only a few send at a time (turn_window.h).
  void PlanTurns();
  // Sets the events of a flow's epoll entry when they differ from what is registered.
  Status Arm(size_t index, uint32_t events);
  // After a turn taker's events: its turn (one wakeup) is over; passes it on.
  Status TakeTurns(size_t index);
  // Arms the sender the window admitted, for a new turn.
  Status BeginTurn(size_t index);
  Status OnTimer();
  // Applies a flow's outcome: keeps it, re-arms it, or retires it (and reports its error).
  Status Settle(size_t index, const Result<FlowState>& outcome);
  Status Retire(size_t index);

  const int index_;
  RunContext* const run_;
  WorkerBuffers buffers_;  // shared by this worker's flows (flow_payload.h)
  std::vector<Slot> slots_;
  std::vector<size_t> paced_;        // indices of paced flows, ticked by the timerfd
  std::optional<TurnWindow> turns_;  // set by PlanTurns when this worker's senders rotate
  net::UniqueFd epoll_;
  net::UniqueFd stop_;
  net::UniqueFd timer_;
  std::thread thread_;
};

}  // namespace nicbench::engine
