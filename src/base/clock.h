// Clock seam: the engine and the sampler read time through Clock so tests can replace it with a
// FakeClock. Implementations are thread-safe.
#pragma once

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

}  // namespace nicbench
