#include "probes/host_snapshot.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <unordered_map>

namespace nicbench::probes {
namespace {

using record::Measured;
using record::Missing;

template <typename T, typename Parser>
Result<T> ReadParsed(FileSource& files, std::string& buffer, std::string_view path, Parser parse) {
  if (auto status = files.ReadInto(path, buffer); !status) return tl::unexpected(status.error());
  return parse(std::string_view(buffer));
}

uint64_t Delta(uint64_t before, uint64_t after) { return after > before ? after - before : 0; }

// Why a member is unknown: the failure of whichever snapshot failed (after first: it is the
// newer news). Parse failures carry no errno and become kError.
template <typename T, typename A, typename B>
Measured<T> UnknownOf(const Result<A>& before, const Result<B>& after) {
  const Error& error = !after ? after.error() : before.error();
  return UnknownFrom<T>(error);
}

record::CpuShare Share(const CpuJiffies& a, const CpuJiffies& b, uint64_t total) {
  auto pct = [total](uint64_t before, uint64_t after) {
    return 100.0 * static_cast<double>(Delta(before, after)) / static_cast<double>(total);
  };
  record::CpuShare share;
  share.cpu = b.cpu;
  share.user = pct(a.user, b.user);
  share.nice = pct(a.nice, b.nice);
  share.system = pct(a.system, b.system);
  share.idle = pct(a.idle, b.idle);
  share.iowait = pct(a.iowait, b.iowait);
  share.irq = pct(a.irq, b.irq);
  share.softirq = pct(a.softirq, b.softirq);
  share.steal = pct(a.steal, b.steal);
  return share;
}

// Sum of the per-kind deltas (not the delta of the sums, so a backwards iowait cannot make
// the shares add up to more than 100).
uint64_t TotalDelta(const CpuJiffies& a, const CpuJiffies& b) {
  return Delta(a.user, b.user) + Delta(a.nice, b.nice) + Delta(a.system, b.system) +
         Delta(a.idle, b.idle) + Delta(a.iowait, b.iowait) + Delta(a.irq, b.irq) +
         Delta(a.softirq, b.softirq) + Delta(a.steal, b.steal);
}

void DiffCpus(const ProcStat& a, const ProcStat& b, record::HostInterval& out) {
  uint64_t total = TotalDelta(a.total, b.total);
  if (total == 0) {
    const char* why = "no clock tick elapsed between the samples";
    out.cpu_total = Measured<record::CpuShare>::Unknown(Missing::kError, why);
    out.cpus = Measured<std::vector<record::CpuShare>>::Unknown(Missing::kError, why);
    return;
  }
  out.cpu_total = Share(a.total, b.total, total);
  std::vector<record::CpuShare> cpus;
  cpus.reserve(b.cpus.size());
  for (const CpuJiffies& now : b.cpus) {
    // Match by CPU number: a CPU taken offline between the samples drops out of the list.
    auto it = std::find_if(a.cpus.begin(), a.cpus.end(),
                           [&](const CpuJiffies& c) { return c.cpu == now.cpu; });
    if (it == a.cpus.end()) continue;
    uint64_t cpu_total = TotalDelta(*it, now);
    if (cpu_total == 0) continue;
    cpus.push_back(Share(*it, now, cpu_total));
  }
  out.cpus = std::move(cpus);
  if (a.ctxt && b.ctxt) {
    out.context_switches = Delta(*a.ctxt, *b.ctxt);
  } else {
    out.context_switches = Measured<uint64_t>::Unknown(Missing::kNotSupported, "no ctxt line");
  }
  if (a.intr_total && b.intr_total) {
    out.interrupts = Delta(*a.intr_total, *b.intr_total);
  } else {
    out.interrupts = Measured<uint64_t>::Unknown(Missing::kNotSupported, "no intr line");
  }
}

record::IrqRate IrqDelta(const InterruptLine* before, const InterruptLine& now, double seconds) {
  record::IrqRate rate;
  rate.irq = now.irq;
  rate.name = now.name;
  rate.chip = now.chip;
  rate.per_cpu.resize(now.per_cpu.size());
  for (size_t i = 0; i < now.per_cpu.size(); ++i) {
    uint64_t was = before != nullptr && i < before->per_cpu.size() ? before->per_cpu[i] : 0;
    rate.per_cpu[i] = Delta(was, now.per_cpu[i]);
    rate.total += rate.per_cpu[i];
  }
  rate.per_second = seconds > 0 ? static_cast<double>(rate.total) / seconds : 0.0;
  return rate;
}

std::vector<record::IrqRate> DiffIrqs(const Interrupts& a, const Interrupts& b, double seconds,
                                      const NicDevice* nic) {
  std::unordered_map<std::string_view, const InterruptLine*> earlier;
  earlier.reserve(a.lines.size());
  for (const InterruptLine& line : a.lines) earlier.emplace(line.irq, &line);
  std::vector<record::IrqRate> rates;
  for (const InterruptLine& now : b.lines) {
    auto it = earlier.find(now.irq);
    const InterruptLine* before = it == earlier.end() ? nullptr : it->second;
    // The same number now serving another device is a new line: count it from zero.
    if (before != nullptr && before->name != now.name) before = nullptr;
    record::IrqRate rate = IrqDelta(before, now, seconds);
    if (rate.total == 0) continue;
    if (nic != nullptr) {
      if (auto queue = MatchNicIrq(*nic, now)) {
        rate.nic = true;
        rate.nic_queue = std::move(*queue);
      }
    }
    rates.push_back(std::move(rate));
  }
  std::stable_sort(
      rates.begin(), rates.end(),
      [](const record::IrqRate& x, const record::IrqRate& y) { return x.total > y.total; });
  return rates;
}

Measured<std::vector<uint64_t>> DiffColumns(const std::vector<uint64_t>& a,
                                            const std::vector<uint64_t>& b, const char* row) {
  if (b.empty()) return Measured<std::vector<uint64_t>>::Unknown(Missing::kNotSupported, row);
  std::vector<uint64_t> deltas(b.size());
  for (size_t i = 0; i < b.size(); ++i) deltas[i] = i < a.size() ? Delta(a[i], b[i]) : 0;
  return deltas;
}

std::vector<record::SoftnetDelta> DiffSoftnet(const std::vector<SoftnetRow>& a,
                                              const std::vector<SoftnetRow>& b) {
  std::vector<record::SoftnetDelta> deltas;
  deltas.reserve(b.size());
  for (const SoftnetRow& now : b) {
    auto it =
        std::find_if(a.begin(), a.end(), [&](const SoftnetRow& r) { return r.cpu == now.cpu; });
    if (it == a.end()) continue;
    record::SoftnetDelta delta;
    delta.cpu = now.cpu;
    delta.processed = Delta(it->processed, now.processed);
    delta.dropped = Delta(it->dropped, now.dropped);
    delta.time_squeeze = Delta(it->time_squeeze, now.time_squeeze);
    deltas.push_back(delta);
  }
  return deltas;
}

std::map<std::string, int64_t> DiffNetCounters(const std::map<std::string, int64_t>& a,
                                               const std::map<std::string, int64_t>& b) {
  std::map<std::string, int64_t> deltas;
  for (const auto& [key, value] : b) {
    auto it = a.find(key);
    if (it == a.end()) continue;
    // Signed: gauges such as Tcp.CurrEstab may fall.
    int64_t delta =
        static_cast<int64_t>(static_cast<uint64_t>(value) - static_cast<uint64_t>(it->second));
    bool always = key.rfind("Tcp.", 0) == 0 || key.rfind("Udp.", 0) == 0;
    if (always || delta != 0) deltas.emplace(key, delta);
  }
  return deltas;
}

double Seconds(const struct timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

record::ProcessUsage DiffUsage(const struct rusage& a, const struct rusage& b) {
  record::ProcessUsage usage;
  usage.user_seconds = std::max(0.0, Seconds(b.ru_utime) - Seconds(a.ru_utime));
  usage.system_seconds = std::max(0.0, Seconds(b.ru_stime) - Seconds(a.ru_stime));
  auto d = [](long x, long y) { return y > x ? static_cast<uint64_t>(y - x) : uint64_t{0}; };
  usage.voluntary_switches = d(a.ru_nvcsw, b.ru_nvcsw);
  usage.involuntary_switches = d(a.ru_nivcsw, b.ru_nivcsw);
  usage.minor_faults = d(a.ru_minflt, b.ru_minflt);
  usage.major_faults = d(a.ru_majflt, b.ru_majflt);
  return usage;
}

void DiffNet(const HostSnapshot& a, const HostSnapshot& b, record::HostInterval& out) {
  if (a.softirqs && b.softirqs) {
    out.net_rx_softirqs = DiffColumns(a.softirqs->net_rx, b.softirqs->net_rx, "no NET_RX row");
    out.net_tx_softirqs = DiffColumns(a.softirqs->net_tx, b.softirqs->net_tx, "no NET_TX row");
  } else {
    out.net_rx_softirqs = UnknownOf<std::vector<uint64_t>>(a.softirqs, b.softirqs);
    out.net_tx_softirqs = UnknownOf<std::vector<uint64_t>>(a.softirqs, b.softirqs);
  }
  if (a.softnet && b.softnet) {
    out.softnet = DiffSoftnet(*a.softnet, *b.softnet);
  } else {
    out.softnet = UnknownOf<std::vector<record::SoftnetDelta>>(a.softnet, b.softnet);
  }
  if (a.net_counters && b.net_counters) {
    out.net_counters = DiffNetCounters(*a.net_counters, *b.net_counters);
  } else {
    out.net_counters = UnknownOf<std::map<std::string, int64_t>>(a.net_counters, b.net_counters);
  }
}

void DiffNamespaces(const HostSnapshot& a, const HostSnapshot& b, record::HostInterval& out) {
  if (!a.namespaces || !b.namespaces) {
    out.host_ip_bytes =
        Measured<uint64_t>::Unknown(Missing::kAbsent, "the host's namespaces were not read");
  } else if (*a.namespaces && *b.namespaces) {
    out.host_ip_bytes = DiffNamespaceOctets(**a.namespaces, **b.namespaces);
  } else {
    out.host_ip_bytes = UnknownOf<uint64_t>(*a.namespaces, *b.namespaces);
  }
}

// The process use and run-queue delay of an end's own threads.
void DiffThreads(const Result<std::map<int, ThreadTimes>>& before,
                 const Result<std::map<int, ThreadTimes>>& after, record::HostInterval& out) {
  if (before && after) {
    out.process = DiffThreadUsage(*before, *after);
    out.run_queue = DiffThreadSched(*before, *after);
  } else {
    out.process = UnknownOf<record::ProcessUsage>(before, after);
    out.run_queue = UnknownOf<record::RunQueueDelay>(before, after);
  }
}

}  // namespace

HostSnapshot ReadHostSnapshot(FileSource& files, std::string& buffer,
                              const std::string& nic_interface, const OwnThreads* threads) {
  HostSnapshot snap;
  if (!nic_interface.empty()) snap.nic_stats = ReadNicStatistics(files, buffer, nic_interface);
  snap.stat = ReadParsed<ProcStat>(files, buffer, "/proc/stat", ParseProcStat);
  snap.interrupts = ReadParsed<Interrupts>(files, buffer, "/proc/interrupts", ParseInterrupts);
  snap.softirqs = ReadParsed<Softirqs>(files, buffer, "/proc/softirqs", ParseSoftirqs);
  snap.softnet = ReadParsed<std::vector<SoftnetRow>>(files, buffer, "/proc/net/softnet_stat",
                                                     ParseSoftnetStat);
  using CounterMap = std::map<std::string, int64_t>;
  snap.net_counters = ReadParsed<CounterMap>(files, buffer, "/proc/net/snmp", ParseSnmp);
  if (snap.net_counters) {
    // netstat (TcpExt, IpExt) is an addition: a kernel without it still has the snmp groups.
    auto extra = ReadParsed<CounterMap>(files, buffer, "/proc/net/netstat", ParseSnmp);
    if (extra) snap.net_counters->merge(*extra);
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &allowed)) snap.allowed_cpus.push_back(cpu);
    }
  }
  if (threads != nullptr) {
    snap.threads = threads->Read(files, buffer);
    return snap;
  }
  snap.tasks = ReadTaskSchedstats(files, buffer);
  struct rusage usage {};
  if (::getrusage(RUSAGE_SELF, &usage) == 0) {
    snap.usage = usage;
  } else {
    snap.usage = FailErrno("getrusage");
  }
  return snap;
}

record::HostInterval DiffSnapshots(const HostSnapshot& before, const HostSnapshot& after,
                                   double start, double end, const NicDevice* nic) {
  record::HostInterval out;
  out.start = start;
  out.end = end;
  if (before.stat && after.stat) {
    DiffCpus(*before.stat, *after.stat, out);
  } else {
    out.cpus = UnknownOf<std::vector<record::CpuShare>>(before.stat, after.stat);
    out.cpu_total = UnknownOf<record::CpuShare>(before.stat, after.stat);
    out.context_switches = UnknownOf<uint64_t>(before.stat, after.stat);
    out.interrupts = UnknownOf<uint64_t>(before.stat, after.stat);
  }
  if (before.interrupts && after.interrupts) {
    out.irqs = DiffIrqs(*before.interrupts, *after.interrupts, end - start, nic);
  } else {
    out.irqs = UnknownOf<std::vector<record::IrqRate>>(before.interrupts, after.interrupts);
  }
  DiffNet(before, after, out);
  DiffNamespaces(before, after, out);
  if (before.threads && after.threads) {
    DiffThreads(*before.threads, *after.threads, out);
    if (out.process.known()) out.process.value().allowed_cpus = after.allowed_cpus;
  } else if (before.usage && after.usage) {
    out.process = DiffUsage(*before.usage, *after.usage);
    out.process.value().allowed_cpus = after.allowed_cpus;
  } else {
    out.process = UnknownOf<record::ProcessUsage>(before.usage, after.usage);
  }
  if (before.nic_stats && after.nic_stats) {
    std::map<std::string, int64_t> deltas;
    for (const auto& [key, value] : *after.nic_stats) {
      auto it = before.nic_stats->find(key);
      if (it != before.nic_stats->end()) deltas[key] = std::max<int64_t>(0, value - it->second);
    }
    out.nic_counters = std::move(deltas);
  } else {
    out.nic_counters = UnknownOf<std::map<std::string, int64_t>>(before.nic_stats, after.nic_stats);
  }
  if (before.threads && after.threads) {
    // Set with the process use above.
  } else if (before.tasks && after.tasks) {
    out.run_queue = DiffTaskSchedstats(*before.tasks, *after.tasks);
  } else {
    out.run_queue = UnknownOf<record::RunQueueDelay>(before.tasks, after.tasks);
  }
  return out;
}

}  // namespace nicbench::probes
