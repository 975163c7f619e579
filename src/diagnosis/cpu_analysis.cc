#include "diagnosis/cpu_analysis.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace nicbench::diagnosis {
namespace {

double UserSystem(const record::CpuShare& c) { return c.user + c.nice + c.system; }

struct HostProcesses {
  double largest = 0;  // the busier of the nicbench processes sharing the host
  double sum = 0;
};

// Both ends' process use in the same interval when they share the host's CPUs.
std::optional<HostProcesses> ProcessesOnHost(const RunView& view, const End& end, size_t index,
                                             const record::HostInterval& sample) {
  std::optional<double> own = ProcessPercent(sample);
  if (!own) return std::nullopt;
  if (!view.SharedHost()) return HostProcesses{*own, *own};
  const End* other = end.local ? view.remote() : &view.local();
  auto other_samples = view.Samples(*other);
  if (index >= other_samples.size()) return std::nullopt;
  std::optional<double> theirs = ProcessPercent(*other_samples[index]);
  if (!theirs) return std::nullopt;
  return HostProcesses{std::max(*own, *theirs), *own + *theirs};
}

// The mean use of the nicbench process confined to `core` alone, if one is and no other
// nicbench process of this run may run there.
std::optional<double> PinnedProcessPercent(const RunView& view, const End& end, int core) {
  std::vector<const End*> ends = view.SharedHost() ? view.ends() : std::vector<const End*>{&end};
  const End* pinned = nullptr;
  for (const End* e : ends) {
    const std::vector<int> allowed = AllowedCpus(view, *e);
    if (allowed.empty()) return std::nullopt;  // unknown: it may run anywhere
    if (std::find(allowed.begin(), allowed.end(), core) == allowed.end()) continue;
    if (allowed.size() != 1 || pinned != nullptr) return std::nullopt;
    pinned = e;
  }
  if (pinned == nullptr) return std::nullopt;
  std::vector<double> use;
  for (const auto* s : view.Samples(*pinned)) {
    if (auto p = ProcessPercent(*s)) use.push_back(*p);
  }
  if (use.empty()) return std::nullopt;
  return Mean(use);
}

}  // namespace

NicIrqs CollectIrqs(const RunView& view, const End& end) {
  NicIrqs out;
  for (const auto* s : view.Samples(end)) {
    const auto* irqs = s->irqs.get();
    if (irqs == nullptr) continue;
    ++out.samples;
    out.seconds += Seconds(*s);
    for (const auto& line : *irqs) {
      if (!line.nic) continue;
      out.total += line.total;
      out.per_line[fmt::format("{} (irq {})", line.name, line.irq)] += line.total;
      if (out.per_cpu.size() < line.per_cpu.size()) out.per_cpu.resize(line.per_cpu.size());
      for (size_t c = 0; c < line.per_cpu.size(); ++c) out.per_cpu[c] += line.per_cpu[c];
    }
    if (const auto* cpus = s->cpus.get()) {
      ++out.cpu_samples;
      if (out.busy_sum.size() < cpus->size()) {
        out.busy_sum.resize(cpus->size());
        out.idle_sum.resize(cpus->size());
      }
      for (size_t c = 0; c < cpus->size(); ++c) {
        out.busy_sum[c] += (*cpus)[c].Busy();
        out.idle_sum[c] += (*cpus)[c].idle;
      }
    }
  }
  return out;
}

std::optional<double> MeanRunQueueWait(const RunView& view, const End& end) {
  std::vector<double> waits;
  for (const auto* s : view.Samples(end)) {
    if (auto w = RunQueueWaitShare(*s)) waits.push_back(*w);
  }
  if (waits.empty()) return std::nullopt;
  return Mean(waits);
}

std::optional<double> MeanProcessPercent(const RunView& view, const End& end) {
  std::vector<double> use;
  for (const auto* s : view.Samples(end)) {
    if (auto p = ProcessPercent(*s)) use.push_back(*p);
  }
  if (use.empty()) return std::nullopt;
  return Mean(use);
}

std::vector<int> AllowedCpus(const RunView& view, const End& end) {
  auto samples = view.Samples(end);
  for (auto it = samples.rbegin(); it != samples.rend(); ++it) {
    if (const auto* usage = (*it)->process.get(); usage && !usage->allowed_cpus.empty()) {
      return usage->allowed_cpus;
    }
  }
  return {};
}

double CoreSaturation::CompetitorPercent() const {
  if (pinned_process_percent) return std::max(0.0, user + system - *pinned_process_percent);
  if (!others_percent || !core_process_percent) return 0;
  return std::max(0.0, std::min(user + system - *core_process_percent, *others_percent));
}

std::string CoreSaturation::DominantKind() const {
  std::pair<double, const char*> kinds[] = {
      {user, "user time (copying data in nicbench or another program)"},
      {system, "system time (kernel work in a process's context: socket calls, copies)"},
      {irq, "hard interrupts"},
      {softirq, "softirq (NET_RX/NET_TX packet processing)"},
      {steal, "steal (the hypervisor ran another guest)"}};
  return std::max_element(std::begin(kinds), std::end(kinds))->second;
}

std::string CoreSaturation::CoreText() const {
  return fmt::format(
      "cpu{} {:.0f}% busy: user {:.0f}%, system {:.0f}%, irq {:.0f}%, softirq "
      "{:.0f}%, steal {:.0f}%",
      core, busy, user, system, irq, softirq, steal);
}

CoreSaturation AnalyzeCpu(const RunView& view, const End& end, const Thresholds& t) {
  CoreSaturation out;
  auto samples = view.Samples(end);
  // Every saturated core of every sample, not only the busiest: when both ends share the host
  // (a test stand) or a competitor runs, several cores are saturated at once, and the one that
  // tells the story is the one where processes' own time (user+system) is largest.
  std::map<int, std::vector<const record::CpuShare*>> saturated_by_core;
  std::vector<double> process, others, core_process;
  for (size_t i = 0; i < samples.size(); ++i) {
    const auto* cpus = samples[i]->cpus.get();
    if (cpus == nullptr || cpus->empty()) continue;
    if (out.samples == 0) out.start = samples[i]->start;
    out.end = samples[i]->end;
    ++out.samples;
    const record::CpuShare* top =
        &*std::max_element(cpus->begin(), cpus->end(),
                           [](const auto& a, const auto& b) { return a.Busy() < b.Busy(); });
    out.mean_top_busy += top->Busy();
    if (top->Busy() >= t.core_busy_percent) ++out.saturated;
    for (const record::CpuShare& c : *cpus) {
      if (c.Busy() >= t.core_busy_percent) saturated_by_core[c.cpu].push_back(&c);
    }
    if (auto own = ProcessPercent(*samples[i])) process.push_back(*own);
    if (auto all = ProcessesOnHost(view, end, i, *samples[i])) {
      double host_user_system = 0;
      for (const auto& c : *cpus) host_user_system += UserSystem(c);
      others.push_back(std::max(0.0, host_user_system - all->sum));
      core_process.push_back(all->largest);
    }
  }
  if (out.samples > 0) out.mean_top_busy /= out.samples;
  if (!process.empty()) out.process_percent = Mean(process);
  if (!others.empty() && others.size() == process.size()) {
    out.others_percent = Mean(others);
    out.core_process_percent = Mean(core_process);
  }
  // The core: among those saturated in at least the required share of samples, the one with
  // the most process (user+system) time; a core saturated by softirq alone comes after.
  const size_t needed = static_cast<size_t>(
      std::ceil(t.saturated_interval_fraction * static_cast<double>(out.samples)));
  double best = -1;
  for (const auto& [cpu, shares] : saturated_by_core) {
    if (shares.size() < std::max<size_t>(needed, 1)) continue;
    double user_system = 0;
    for (const record::CpuShare* c : shares) user_system += UserSystem(*c);
    user_system /= static_cast<double>(shares.size());
    if (user_system > best) {
      best = user_system;
      out.core = cpu;
    }
  }
  if (out.core < 0) return out;
  const auto& chosen = saturated_by_core[out.core];
  const int n = static_cast<int>(chosen.size());
  for (const record::CpuShare* c : chosen) {
    out.busy += c->Busy();
    out.user += c->user + c->nice;
    out.system += c->system;
    out.irq += c->irq;
    out.softirq += c->softirq;
    out.steal += c->steal;
  }
  for (double* v : {&out.busy, &out.user, &out.system, &out.irq, &out.softirq, &out.steal}) *v /= n;
  out.pinned_process_percent = PinnedProcessPercent(view, end, out.core);
  out.run_queue_wait = MeanRunQueueWait(view, end);
  return out;
}

}  // namespace nicbench::diagnosis
