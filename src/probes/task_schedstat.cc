// nicbench's own threads' scheduling delay: /proc/self/task/*/schedstat, parsed and diffed.
#include <string>

#include "probes/host_snapshot.h"
#include "probes/proc_parsers.h"
#include "probes/text_scan.h"

namespace nicbench::probes {

Result<SchedStat> ParseSchedstat(std::string_view text) {
  SchedStat out;
  auto run = scan::ToU64(scan::NextToken(text));
  auto wait = scan::ToU64(scan::NextToken(text));
  auto slices = scan::ToU64(scan::NextToken(text));
  if (!run || !wait || !slices) return Fail("schedstat: expected three unsigned numbers");
  out.run_ns = *run;
  out.wait_ns = *wait;
  out.timeslices = *slices;
  return out;
}

Result<std::map<int, SchedStat>> ReadTaskSchedstats(FileSource& files, std::string& buffer) {
  auto tids = files.ListDir("/proc/self/task");
  if (!tids) return tl::unexpected(tids.error());
  std::map<int, SchedStat> out;
  for (const std::string& name : *tids) {
    auto tid = scan::ToU64(name);
    if (!tid) continue;
    if (!files.ReadInto("/proc/self/task/" + name + "/schedstat", buffer)) continue;  // exited
    auto stat = ParseSchedstat(buffer);
    if (!stat) return tl::unexpected(stat.error());
    out.emplace(static_cast<int>(*tid), *stat);
  }
  if (out.empty()) return Fail("/proc/self/task: no thread's schedstat could be read");
  return out;
}

record::RunQueueDelay DiffTaskSchedstats(const std::map<int, SchedStat>& before,
                                         const std::map<int, SchedStat>& after) {
  record::RunQueueDelay out;
  uint64_t run_ns = 0, wait_ns = 0;
  for (const auto& [tid, now] : after) {
    SchedStat then{};
    if (auto it = before.find(tid); it != before.end()) then = it->second;
    run_ns += now.run_ns > then.run_ns ? now.run_ns - then.run_ns : 0;
    wait_ns += now.wait_ns > then.wait_ns ? now.wait_ns - then.wait_ns : 0;
    ++out.threads;
  }
  out.on_cpu_seconds = static_cast<double>(run_ns) / 1e9;
  out.waiting_seconds = static_cast<double>(wait_ns) / 1e9;
  return out;
}

}  // namespace nicbench::probes
