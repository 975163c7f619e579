// OwnThreads: the threads of one end of a test (its controller and its data-path workers), so
// that the end's CPU time is its own threads' and not the whole process's. The main job runs
// the client and the server in one process: with the process's rusage each end reported the
// CPU of both, and the two ends added up to twice the process.
//
// Each thread enters the set itself (Enter, from the thread) and leaves it just before it exits
// (Leave keeps its final times from getrusage(RUSAGE_THREAD) and its schedstat, since
// /proc/self/task/TID is gone once it has exited). Read gives every thread's times: a live
// thread's from /proc/self/task/TID/{stat,status,schedstat} (stat's user and system times are in
// clock ticks, 10 ms at USER_HZ=100), an exited one's as it left them.
// Thread safety: Enter, Leave and Read may be called from any thread at once.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "probes/file_source.h"
#include "probes/proc_parsers.h"
#include "record/host_sample.h"

namespace nicbench::probes {

// One thread's cumulative times since it started.
struct ThreadTimes {
  double user_seconds = 0, system_seconds = 0;
  uint64_t minor_faults = 0, major_faults = 0;
  uint64_t voluntary_switches = 0, involuntary_switches = 0;
  SchedStat sched;    // time on a CPU and waiting for one (ns)
  int last_cpu = -1;  // the CPU it last ran on (stat field 39), -1 when unknown
};

// /proc/PID/task/TID/stat: minflt, majflt, utime and stime (fields 10, 12, 14, 15 of proc(5)),
// and the CPU it last ran on (field 39, "processor"; left -1 when the line is shorter);
// `ticks_per_second` converts the times (sysconf(_SC_CLK_TCK)). The command name may hold
// spaces and parentheses: the fields are counted from the last ')'.
Result<ThreadTimes> ParseTaskStat(std::string_view text, double ticks_per_second);
// /proc/PID/task/TID/status: voluntary_ctxt_switches and nonvoluntary_ctxt_switches into `out`.
Status ParseTaskSwitches(std::string_view text, ThreadTimes& out);

class OwnThreads {
 public:
  // The calling thread joins the set (again: no change).
  void Enter();
  // The calling thread leaves the set with its final times kept. Call last thing before the
  // thread exits; a thread that never entered is added as it leaves.
  void Leave();
  // Every thread of the set by tid: live ones read through `files` (a thread that cannot be
  // read is left out), exited ones as they left. Error when the set is empty or no thread could
  // be read.
  Result<std::map<int, ThreadTimes>> Read(FileSource& files, std::string& buffer) const;

 private:
  mutable std::mutex mu_;
  std::map<int, std::optional<ThreadTimes>> threads_;  // nullopt: still running
};

// The CPU use of a set of threads between two readings: threads in both count their difference,
// threads that started in between count from zero (a thread read in `before` only is one that
// could not be read again: left out). allowed_cpus is left empty.
record::ProcessUsage DiffThreadUsage(const std::map<int, ThreadTimes>& before,
                                     const std::map<int, ThreadTimes>& after);
// The same threads' time on a CPU and waiting for one, as DiffTaskSchedstats.
record::RunQueueDelay DiffThreadSched(const std::map<int, ThreadTimes>& before,
                                      const std::map<int, ThreadTimes>& after);
// User and system seconds summed over the threads.
std::pair<double, double> SumUserSystem(const std::map<int, ThreadTimes>& threads);

}  // namespace nicbench::probes
