#include "probes/own_threads.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "probes/host_snapshot.h"
#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

double Seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

double TicksPerSecond() {
  static const double kTicks = [] {
    const long ticks = ::sysconf(_SC_CLK_TCK);
    return ticks > 0 ? static_cast<double>(ticks) : 100.0;
  }();
  return kTicks;
}

uint64_t Delta(uint64_t before, uint64_t after) { return after > before ? after - before : 0; }
double Delta(double before, double after) { return after > before ? after - before : 0.0; }

// The calling thread's times, as it leaves.
ThreadTimes OwnTimes() {
  ThreadTimes out;
  struct rusage usage {};
  if (::getrusage(RUSAGE_THREAD, &usage) == 0) {
    out.user_seconds = Seconds(usage.ru_utime);
    out.system_seconds = Seconds(usage.ru_stime);
    out.minor_faults = static_cast<uint64_t>(usage.ru_minflt);
    out.major_faults = static_cast<uint64_t>(usage.ru_majflt);
    out.voluntary_switches = static_cast<uint64_t>(usage.ru_nvcsw);
    out.involuntary_switches = static_cast<uint64_t>(usage.ru_nivcsw);
  }
  out.last_cpu = ::sched_getcpu();
  DirFileSource live;
  std::string text;
  if (live.ReadInto("/proc/thread-self/schedstat", text)) {
    if (auto sched = ParseSchedstat(text)) out.sched = *sched;
  }
  return out;
}

Result<ThreadTimes> ReadLive(FileSource& files, std::string& buffer, int tid) {
  const std::string dir = "/proc/self/task/" + std::to_string(tid);
  if (auto s = files.ReadInto(dir + "/stat", buffer); !s) return tl::unexpected(s.error());
  auto times = ParseTaskStat(buffer, TicksPerSecond());
  if (!times) return times;
  // status and schedstat are additions: a kernel without schedstat still has the times.
  if (files.ReadInto(dir + "/status", buffer)) (void)ParseTaskSwitches(buffer, *times);
  if (files.ReadInto(dir + "/schedstat", buffer)) {
    if (auto sched = ParseSchedstat(buffer)) times->sched = *sched;
  }
  return times;
}

}  // namespace

Result<ThreadTimes> ParseTaskStat(std::string_view text, double ticks_per_second) {
  const size_t paren = text.rfind(')');
  if (paren == std::string_view::npos) return Fail("task stat: no command name");
  std::string_view rest = text.substr(paren + 1);
  // Fields from 3 (state) on; keep 10 (minflt), 12 (majflt), 14 (utime), 15 (stime).
  std::optional<uint64_t> minflt, majflt, utime, stime;
  for (int field = 3; field <= 15; ++field) {
    const std::string_view token = scan::NextToken(rest);
    if (token.empty()) return Fail("task stat: fewer than 15 fields");
    if (field == 10) minflt = scan::ToU64(token);
    if (field == 12) majflt = scan::ToU64(token);
    if (field == 14) utime = scan::ToU64(token);
    if (field == 15) stime = scan::ToU64(token);
  }
  if (!minflt || !majflt || !utime || !stime) return Fail("task stat: a field is not a number");
  ThreadTimes out;
  for (int field = 16; field <= 39; ++field) {
    const std::string_view token = scan::NextToken(rest);
    if (token.empty()) break;
    if (field == 39) {
      if (auto cpu = scan::ToU64(token)) out.last_cpu = static_cast<int>(*cpu);
    }
  }
  out.minor_faults = *minflt;
  out.major_faults = *majflt;
  out.user_seconds = static_cast<double>(*utime) / ticks_per_second;
  out.system_seconds = static_cast<double>(*stime) / ticks_per_second;
  return out;
}

Status ParseTaskSwitches(std::string_view text, ThreadTimes& out) {
  int found = 0;
  while (!text.empty()) {
    std::string_view line = scan::NextLine(text);
    uint64_t* target = nullptr;
    if (scan::StartsWith(line, "voluntary_ctxt_switches:")) target = &out.voluntary_switches;
    if (scan::StartsWith(line, "nonvoluntary_ctxt_switches:")) target = &out.involuntary_switches;
    if (target == nullptr) continue;
    line.remove_prefix(line.find(':') + 1);
    const auto value = scan::ToU64(scan::Trim(line));
    if (!value) return Fail("task status: a switch count is not a number");
    *target = *value;
    ++found;
  }
  if (found != 2) return Fail("task status: no context switch counts");
  return Ok();
}

void OwnThreads::Enter() {
  const int tid = static_cast<int>(::gettid());
  std::lock_guard lock(mu_);
  threads_.try_emplace(tid);
}

void OwnThreads::Leave() {
  const int tid = static_cast<int>(::gettid());
  ThreadTimes last = OwnTimes();
  std::lock_guard lock(mu_);
  threads_[tid] = last;
}

// The lock is held while the live threads are read, so none of them can leave (and exit, and
// its tid go) between the listing and its read.
Result<std::map<int, ThreadTimes>> OwnThreads::Read(FileSource& files, std::string& buffer) const {
  // The files are read without the lock: a worker that starts or ends meanwhile (Enter, Leave)
  // must not wait for this end's /proc reading, or its data would start late on a busy host.
  std::map<int, std::optional<ThreadTimes>> threads;
  {
    std::lock_guard lock(mu_);
    threads = threads_;
  }
  if (threads.empty()) return Fail("no thread of this end has started");
  std::map<int, ThreadTimes> out;
  for (const auto& [tid, left] : threads) {
    if (left) {
      out.emplace(tid, *left);
    } else if (auto live = ReadLive(files, buffer, tid)) {
      out.emplace(tid, *live);
    }
  }
  if (out.empty()) return Fail("/proc/self/task: none of this end's threads could be read");
  return out;
}

record::ProcessUsage DiffThreadUsage(const std::map<int, ThreadTimes>& before,
                                     const std::map<int, ThreadTimes>& after) {
  record::ProcessUsage out;
  for (const auto& [tid, now] : after) {
    ThreadTimes then{};
    if (auto it = before.find(tid); it != before.end()) then = it->second;
    out.user_seconds += Delta(then.user_seconds, now.user_seconds);
    out.system_seconds += Delta(then.system_seconds, now.system_seconds);
    out.minor_faults += Delta(then.minor_faults, now.minor_faults);
    out.major_faults += Delta(then.major_faults, now.major_faults);
    out.voluntary_switches += Delta(then.voluntary_switches, now.voluntary_switches);
    out.involuntary_switches += Delta(then.involuntary_switches, now.involuntary_switches);
    // Only a thread that used CPU time in the interval says where this end ran.
    const bool ran =
        now.user_seconds + now.system_seconds > then.user_seconds + then.system_seconds;
    if (ran && now.last_cpu >= 0) out.ran_on_cpus.push_back(now.last_cpu);
  }
  std::sort(out.ran_on_cpus.begin(), out.ran_on_cpus.end());
  out.ran_on_cpus.erase(std::unique(out.ran_on_cpus.begin(), out.ran_on_cpus.end()),
                        out.ran_on_cpus.end());
  return out;
}

record::RunQueueDelay DiffThreadSched(const std::map<int, ThreadTimes>& before,
                                      const std::map<int, ThreadTimes>& after) {
  std::map<int, SchedStat> a, b;
  for (const auto& [tid, t] : before) a.emplace(tid, t.sched);
  for (const auto& [tid, t] : after) b.emplace(tid, t.sched);
  return DiffTaskSchedstats(a, b);
}

std::pair<double, double> SumUserSystem(const std::map<int, ThreadTimes>& threads) {
  double user = 0, system = 0;
  for (const auto& [tid, t] : threads) {
    user += t.user_seconds;
    system += t.system_seconds;
  }
  return {user, system};
}

}  // namespace nicbench::probes
