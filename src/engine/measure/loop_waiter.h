// LoopWaiter: how a test's controller waits during the test (MeasureLoop), behind a seam so a unit
// test can script the wake-ups on a FakeClock. EpollWaiter is the real one: an epoll set of the
// control socket, the DataPath's done fd, a stop fd and a timerfd for interval boundaries.
// Thread safety: owned by one controller thread.
#pragma once

#include <memory>

#include "base/clock.h"
#include "base/result.h"

namespace nicbench::engine {

class LoopWaiter {
 public:
  enum class Wake { kTimer, kControl, kDone, kStop };
  virtual ~LoopWaiter() = default;
  // Waits until `until` (on the loop's clock) or an event. Events win over the timer when both
  // are ready; kDone (every sender met the budget) is reported once.
  virtual Result<Wake> Wait(MonoTime until) = 0;
};

// The real wait, on CLOCK_MONOTONIC (SteadyClock). An fd of -1 is left out of the set.
class EpollWaiter final : public LoopWaiter {
 public:
  static Result<std::unique_ptr<EpollWaiter>> Create(int control_fd, int done_fd, int stop_fd);
  EpollWaiter(const EpollWaiter&) = delete;
  EpollWaiter& operator=(const EpollWaiter&) = delete;
  ~EpollWaiter() override;

  // The done fd reports once, then is removed from the set.
  Result<Wake> Wait(MonoTime until) override;

 private:
  EpollWaiter() = default;
  int epoll_fd_ = -1, timer_fd_ = -1, done_fd_ = -1;
};

}  // namespace nicbench::engine
