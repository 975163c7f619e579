// The process CPU meter iperf3 reports (cpu_util). Thread safety: one owner thread.
#pragma once

#include <utility>

#include "base/clock.h"
#include "probes/own_threads.h"
#include "record/run_record.h"

namespace nicbench::engine {

// Process CPU time over wall time, as iperf3's cpu_util (percent of one CPU; may exceed 100
// with several threads busy). With `threads`, the CPU time of the end's own threads instead of
// the whole process's (the main job runs both ends in one process); `threads` must outlive it.
class CpuMeter {
 public:
  void Start(const probes::OwnThreads* threads = nullptr);
  record::CpuUtilization Read() const;

 private:
  // User and system seconds so far.
  std::pair<double, double> Now() const;

  MonoTime start_wall_{};
  const probes::OwnThreads* threads_ = nullptr;
  std::pair<double, double> start_{};
};

}  // namespace nicbench::engine
