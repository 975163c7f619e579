#include "ttcp/timer.h"

#include <ctime>

namespace nicbench::ttcp {

timeval MonotonicNow() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return timeval{now.tv_sec, static_cast<suseconds_t>(now.tv_nsec / 1000)};
}

TimerSnapshot StartTimer() {
  TimerSnapshot s;
  s.wall = MonotonicNow();
  getrusage(RUSAGE_SELF, &s.usage);
  return s;
}

TimerSnapshot StopTimer() {
  TimerSnapshot s;
  getrusage(RUSAGE_SELF, &s.usage);
  s.wall = MonotonicNow();
  return s;
}

}  // namespace nicbench::ttcp
