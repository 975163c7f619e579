// HostSnapshot: the parsed counters of one moment (the files of /proc the sampler reads, plus
// the process's rusage), and the pure difference of two snapshots as a record::HostInterval.
// The reader (host_delta_reader.h) is a thin loop around these; tests feed them fixtures.
// Plain values and pure functions; thread-compatible.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "base/result.h"
#include "probes/file_source.h"
#include "probes/namespace_bytes.h"
#include "probes/nic_device.h"
#include "probes/own_threads.h"
#include "probes/proc_parsers.h"
#include "record/host_sample.h"

namespace nicbench::probes {

struct HostSnapshot {
  Result<ProcStat> stat = Fail("not read");
  Result<Interrupts> interrupts = Fail("not read");
  Result<Softirqs> softirqs = Fail("not read");
  Result<std::vector<SoftnetRow>> softnet = Fail("not read");
  // /proc/net/snmp and /proc/net/netstat together: "Tcp.RetransSegs", "TcpExt.ListenDrops".
  Result<std::map<std::string, int64_t>> net_counters = Fail("not read");
  Result<struct rusage> usage = Fail("not read");
  std::vector<int> allowed_cpus;  // sched_getaffinity of this process; empty if unreadable
  // Each thread of this process (by tid): /proc/self/task/TID/schedstat.
  Result<std::map<int, SchedStat>> tasks = Fail("not read");
  // With an end's own threads (OwnThreads): each of them, whose sum replaces `usage` and `tasks`
  // as the interval's process use and run-queue delay.
  std::optional<Result<std::map<int, ThreadTimes>>> threads;
  // The NIC's /sys/class/net/IF/statistics counters (kNicCounterNames); unread without a NIC.
  Result<std::map<std::string, int64_t>> nic_stats = Fail("no NIC (loopback)");
  // Every network namespace's IPv4 bytes (namespace_bytes.h); unset where the reader was not
  // asked to read them (HostDeltaOptions::host_namespaces), so the interval's host_ip_bytes is
  // absent, not an error.
  std::optional<Result<NamespaceOctets>> namespaces;
};

// The counters of /sys/class/net/IF/statistics a sample keeps: the packet counts and every
// error and drop counter of struct rtnl_link_stats64 (include/uapi/linux/if_link.h).
extern const char* const kNicCounterNames[];
extern const size_t kNicCounterCount;

// Reads kNicCounterNames of `iface` through `files`; a counter a driver does not provide is
// left out; Error when none could be read.
Result<std::map<std::string, int64_t>> ReadNicStatistics(FileSource& files, std::string& buffer,
                                                         const std::string& iface);

// Every thread's schedstat of this process, through `files` (/proc/self/task/*/schedstat). A
// thread that exits between the listing and its read is skipped.
Result<std::map<int, SchedStat>> ReadTaskSchedstats(FileSource& files, std::string& buffer);

// The threads' time on a CPU and waiting for one between two readings: threads in both count
// their difference, threads that started in between count from zero, threads gone are left out.
record::RunQueueDelay DiffTaskSchedstats(const std::map<int, SchedStat>& before,
                                         const std::map<int, SchedStat>& after);

// Reads and parses every file of a snapshot from `files`, using `buffer` for the raw text
// (kept by the caller so its capacity is reused). A file that cannot be read or parsed leaves
// its member holding the Error; the others are still read. rusage is the calling process's.
// `nic_interface` empty (loopback): nic_stats stays unread. `threads` set: the process use is
// that of those threads (the snapshot's `threads`), not the whole process's.
HostSnapshot ReadHostSnapshot(FileSource& files, std::string& buffer,
                              const std::string& nic_interface = {},
                              const OwnThreads* threads = nullptr);

// The interval between two snapshots. Counters that go backwards (a driver reset, the iowait
// quirk of /proc/stat) give a zero delta, never a wrap-around. An IRQ line that appears in
// `after` only (a driver loaded, a device brought up) counts from zero; one that vanished is
// left out. Members whose snapshot failed are Measured::Unknown with the reason.
// What is kept of the protocol counters: every Tcp.* and Udp.* counter (they are few), and of
// the other groups (TcpExt, IpExt, Ip, Icmp, ...) only those whose delta is not zero.
record::HostInterval DiffSnapshots(const HostSnapshot& before, const HostSnapshot& after,
                                   double start, double end, const NicDevice* nic);

}  // namespace nicbench::probes
