// Clock seam: the engine and the sampler read time through Clock so tests can replace it with a
// FakeClock. Implementations are thread-safe.
#pragma once

#include <atomic>
#include <chrono>

namespace nicbench {

using MonoTime = std::chrono::steady_clock::time_point;
using Seconds = std::chrono::duration<double>;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual MonoTime Now() const = 0;
};

// The real CLOCK_MONOTONIC.
class SteadyClock final : public Clock {
 public:
  MonoTime Now() const override { return std::chrono::steady_clock::now(); }
  static const SteadyClock& Instance();
};

// A clock that moves only when told: a test sets the time a loop sees, so what happens at
// "999 ms" is the same on every run and every machine. Starts at an arbitrary point well after
// the epoch (time points before it are never needed). Time never goes back: Set to an earlier
// time is ignored.
class FakeClock final : public Clock {
 public:
  FakeClock() : now_(std::chrono::hours(1000)) {}
  MonoTime Now() const override { return MonoTime(now_.load()); }
  void Set(MonoTime t) {
    auto want = t.time_since_epoch();
    auto have = now_.load();
    while (want > have && !now_.compare_exchange_weak(have, want)) {
    }
  }
  void Advance(std::chrono::nanoseconds by) { Set(Now() + by); }

 private:
  std::atomic<MonoTime::duration> now_;
};

}  // namespace nicbench
