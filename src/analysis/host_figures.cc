#include "analysis/host_figures.h"

#include <algorithm>
#include <map>

namespace nicbench::analysis {
namespace {

void SortLargestFirst(std::vector<KindShare>& kinds) {
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const KindShare& a, const KindShare& b) { return a.percent > b.percent; });
}

double Seconds(const record::HostInterval& sample) { return sample.end - sample.start; }

}  // namespace

std::vector<KindShare> BusyKinds(const record::CpuShare& cpu) {
  std::vector<KindShare> kinds = {{"us", cpu.user}, {"ni", cpu.nice},    {"sy", cpu.system},
                                  {"hi", cpu.irq},  {"si", cpu.softirq}, {"st", cpu.steal}};
  SortLargestFirst(kinds);
  return kinds;
}

std::optional<CoreLoad> BusiestCore(const record::HostInterval& sample) {
  if (!sample.cpus.known() || sample.cpus.value().empty()) return std::nullopt;
  const auto& cpus = sample.cpus.value();
  const auto busiest = std::max_element(
      cpus.begin(), cpus.end(),
      [](const record::CpuShare& a, const record::CpuShare& b) { return a.Busy() < b.Busy(); });
  return CoreLoad{busiest->cpu, busiest->Busy(), BusyKinds(*busiest)};
}

std::vector<CoreLoad> BusiestCores(const std::vector<const record::HostInterval*>& samples,
                                   size_t limit) {
  // Weighted by interval length, so a short last interval counts for what it is.
  std::map<int, record::CpuShare> sums;
  std::map<int, double> seconds;
  for (const record::HostInterval* counted : samples) {
    const record::HostInterval& sample = *counted;
    if (!sample.cpus.known() || !(Seconds(sample) > 0)) continue;
    const double w = Seconds(sample);
    for (const record::CpuShare& c : sample.cpus.value()) {
      record::CpuShare& s = sums[c.cpu];
      s.cpu = c.cpu;
      s.user += c.user * w, s.nice += c.nice * w, s.system += c.system * w;
      s.idle += c.idle * w, s.iowait += c.iowait * w, s.irq += c.irq * w;
      s.softirq += c.softirq * w, s.steal += c.steal * w;
      seconds[c.cpu] += w;
    }
  }
  std::vector<CoreLoad> cores;
  for (auto& [cpu, s] : sums) {
    const double w = seconds[cpu];
    s.user /= w, s.nice /= w, s.system /= w, s.idle /= w, s.iowait /= w, s.irq /= w;
    s.softirq /= w, s.steal /= w;
    cores.push_back(CoreLoad{cpu, s.Busy(), BusyKinds(s)});
  }
  std::stable_sort(cores.begin(), cores.end(), [](const CoreLoad& a, const CoreLoad& b) {
    return a.busy_percent > b.busy_percent;
  });
  if (cores.size() > limit) cores.resize(limit);
  return cores;
}

std::optional<double> NicIrqPerSecond(const record::HostInterval& sample) {
  if (!sample.irqs.known()) return std::nullopt;
  bool any = false;
  double rate = 0;
  for (const record::IrqRate& line : sample.irqs.value()) {
    if (!line.nic) continue;
    any = true;
    rate += line.per_second;
  }
  if (!any) return std::nullopt;
  return rate;
}

std::optional<double> IrqPerSecond(const record::HostInterval& sample) {
  if (!sample.interrupts.known() || !(Seconds(sample) > 0)) return std::nullopt;
  return static_cast<double>(sample.interrupts.value()) / Seconds(sample);
}

std::optional<int64_t> NetCounter(const record::HostInterval& sample, const std::string& key) {
  if (!sample.net_counters.known()) return std::nullopt;
  const auto& counters = sample.net_counters.value();
  const auto it = counters.find(key);
  if (it == counters.end()) return std::nullopt;
  return it->second;
}

std::optional<SoftnetTotals> Softnet(const record::HostInterval& sample) {
  if (!sample.softnet.known()) return std::nullopt;
  SoftnetTotals totals;
  for (const record::SoftnetDelta& d : sample.softnet.value()) {
    totals.dropped += d.dropped;
    totals.time_squeeze += d.time_squeeze;
  }
  return totals;
}

std::vector<IrqLineTotal> TopIrqLines(const std::vector<record::HostInterval>& samples,
                                      size_t limit) {
  std::map<std::pair<std::string, std::string>, IrqLineTotal> lines;
  std::map<std::pair<std::string, std::string>, std::vector<uint64_t>> per_cpu;
  double seconds = 0;
  for (const record::HostInterval& sample : samples) {
    if (!sample.irqs.known() || !(Seconds(sample) > 0)) continue;
    seconds += Seconds(sample);
    for (const record::IrqRate& r : sample.irqs.value()) {
      const auto key = std::make_pair(r.irq, r.name);
      IrqLineTotal& line = lines[key];
      line.irq = r.irq, line.name = r.name, line.nic_queue = r.nic_queue, line.nic = r.nic;
      line.total += r.total;
      std::vector<uint64_t>& cpus = per_cpu[key];
      if (cpus.size() < r.per_cpu.size()) cpus.resize(r.per_cpu.size());
      for (size_t i = 0; i < r.per_cpu.size(); ++i) cpus[i] += r.per_cpu[i];
    }
  }
  std::vector<IrqLineTotal> result;
  for (auto& [key, line] : lines) {
    const std::vector<uint64_t>& cpus = per_cpu[key];
    if (!cpus.empty()) {
      line.top_cpu = static_cast<int>(std::max_element(cpus.begin(), cpus.end()) - cpus.begin());
    }
    line.per_second = seconds > 0 ? line.total / seconds : 0;
    result.push_back(line);
  }
  std::stable_sort(result.begin(), result.end(),
                   [](const IrqLineTotal& a, const IrqLineTotal& b) { return a.total > b.total; });
  if (result.size() > limit) result.resize(limit);
  return result;
}

std::optional<CpuSeconds> HostCpuSeconds(const std::vector<const record::HostInterval*>& samples) {
  CpuSeconds cost;
  std::map<std::string, double> by_kind;
  bool any = false;
  for (const record::HostInterval* counted : samples) {
    const record::HostInterval& sample = *counted;
    if (!sample.cpus.known() || !(Seconds(sample) > 0)) continue;
    any = true;
    const double w = Seconds(sample);
    cost.wall_seconds += w;
    cost.cpus = std::max(cost.cpus, static_cast<int>(sample.cpus.value().size()));
    for (const record::CpuShare& c : sample.cpus.value()) {
      cost.total += c.Busy() / 100.0 * w;
      for (const KindShare& k : BusyKinds(c)) by_kind[k.name] += k.percent / 100.0 * w;
    }
  }
  if (!any) return std::nullopt;
  // Fixed names so the pointers outlive the map.
  for (const char* name : {"us", "ni", "sy", "hi", "si", "st"}) {
    cost.kinds.push_back(KindShare{name, by_kind[name]});
  }
  SortLargestFirst(cost.kinds);
  return cost;
}

std::vector<std::pair<std::string, int64_t>> DropCounters(
    const std::vector<record::HostInterval>& samples) {
  std::map<std::string, int64_t> sums;
  for (const record::HostInterval& sample : samples) {
    if (!sample.net_counters.known()) continue;
    for (const auto& [name, delta] : sample.net_counters.value()) {
      // TCPDeferAcceptDrop counts the bare handshake ACKs a TCP_DEFER_ACCEPT listener ignores
      // (net/ipv4/tcp_minisocks.c, tcp_check_req): the option's design, not lost data. A CRR
      // test's own listener sets it, once per connection.
      const bool drops =
          name != "TcpExt.TCPDeferAcceptDrop" &&
          (name.find("Drop") != std::string::npos || name.find("Err") != std::string::npos ||
           name.find("Overflow") != std::string::npos || name.find("Prune") != std::string::npos);
      if (drops) sums[name] += delta;
    }
  }
  std::vector<std::pair<std::string, int64_t>> nonzero;
  for (const auto& [name, total] : sums) {
    if (total != 0) nonzero.emplace_back(name, total);
  }
  return nonzero;
}

}  // namespace nicbench::analysis
