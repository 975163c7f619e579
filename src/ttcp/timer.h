// ttcp's timer: a wall-clock reading plus the process's rusage, taken in the original's order
// (prep_timer: time, then rusage; read_timer: rusage, then time). The wall time comes from
// CLOCK_MONOTONIC, so a clock step during a run cannot distort the figures; only differences
// are ever printed. Thread-safe.
#pragma once

#include <sys/resource.h>
#include <sys/time.h>

namespace nicbench::ttcp {

struct TimerSnapshot {
  timeval wall{};
  rusage usage{};
};

// CLOCK_MONOTONIC as a timeval.
timeval MonotonicNow();

// prep_timer(): the start of a measurement.
TimerSnapshot StartTimer();

// read_timer(): the end of a measurement.
TimerSnapshot StopTimer();

}  // namespace nicbench::ttcp
