#include "analysis/cpu_figures.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/cost.h"
#include "analysis/figures.h"

namespace nicbench::analysis {
namespace {

using Samples = std::vector<const record::HostInterval*>;

double UserSystem(const record::CpuShare& c) { return c.user + c.nice + c.system; }

double Mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

// The mean of `per_sample` over the samples where it is known; nullopt when it never is.
template <typename PerSample>
std::optional<double> MeanOver(const Samples& samples, PerSample per_sample) {
  std::vector<double> values;
  for (const record::HostInterval* s : samples) {
    if (auto v = per_sample(*s)) values.push_back(*v);
  }
  if (values.empty()) return std::nullopt;
  return Mean(values);
}

struct HostProcesses {
  double largest = 0;  // the busier of the nicbench processes sharing the host
  double sum = 0;
};

// Both ends' process use in the same interval when they share the host's CPUs (`peer_samples`
// holds the other end's counted samples then, and is empty otherwise).
std::optional<HostProcesses> ProcessesOnHost(const record::HostInterval& sample, bool shared,
                                             const Samples& peer_samples, size_t index) {
  std::optional<double> own = ProcessPercent(sample);
  if (!own) return std::nullopt;
  if (!shared) return HostProcesses{*own, *own};
  if (index >= peer_samples.size()) return std::nullopt;
  std::optional<double> theirs = ProcessPercent(*peer_samples[index]);
  if (!theirs) return std::nullopt;
  return HostProcesses{std::max(*own, *theirs), *own + *theirs};
}

// The end whose nicbench process is confined to `core` alone, if one is and no other nicbench
// process of this run may run there; null otherwise.
const record::EndpointRecord* PinnedEnd(const record::RunRecord& run,
                                        const record::EndpointRecord& end, int core) {
  std::vector<const record::EndpointRecord*> ends = {&end};
  if (SharedPeer(run, end) != nullptr) ends = {&run.local, &run.remote.value()};
  const record::EndpointRecord* pinned = nullptr;
  for (const record::EndpointRecord* e : ends) {
    const std::vector<int> allowed = AllowedCpus(run, *e);
    if (allowed.empty()) return nullptr;  // unknown: it may run anywhere
    if (std::find(allowed.begin(), allowed.end(), core) == allowed.end()) continue;
    if (allowed.size() != 1 || pinned != nullptr) return nullptr;
    pinned = e;
  }
  return pinned;
}

// What one pass over the counted samples collects besides CoreSaturation's sample figures.
struct Tally {
  // The shares of every core in every sample where it was saturated.
  std::map<int, std::vector<const record::CpuShare*>> saturated_by_core;
  std::vector<double> process, others, core_process;  // per sample, percent of a core
};

// Fills `out`'s samples, saturated, start, end and mean_top_busy.
Tally TallySamples(const record::RunRecord& run, const record::EndpointRecord& end,
                   const SaturationLimits& limits, CoreSaturation& out) {
  Tally tally;
  const Samples samples = CountedSamples(run, end);
  const record::EndpointRecord* peer = SharedPeer(run, end);
  const Samples peer_samples = peer ? CountedSamples(run, *peer) : Samples{};
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
    if (top->Busy() >= limits.core_busy_percent) ++out.saturated;
    for (const record::CpuShare& c : *cpus) {
      if (c.Busy() >= limits.core_busy_percent) tally.saturated_by_core[c.cpu].push_back(&c);
    }
    if (auto own = ProcessPercent(*samples[i])) tally.process.push_back(*own);
    if (auto all = ProcessesOnHost(*samples[i], peer != nullptr, peer_samples, i)) {
      double host_user_system = 0;
      for (const auto& c : *cpus) host_user_system += UserSystem(c);
      tally.others.push_back(std::max(0.0, host_user_system - all->sum));
      tally.core_process.push_back(all->largest);
    }
  }
  if (out.samples > 0) out.mean_top_busy /= out.samples;
  return tally;
}

void SetProcessFigures(const Tally& tally, CoreSaturation& out) {
  if (!tally.process.empty()) out.process_percent = Mean(tally.process);
  if (!tally.others.empty() && tally.others.size() == tally.process.size()) {
    out.others_percent = Mean(tally.others);
    out.core_process_percent = Mean(tally.core_process);
  }
}

// Among the cores saturated in more than `fraction` of `samples`, the one with the most process
// (user+system) time; -1 when there is none.
int ChooseCore(const std::map<int, std::vector<const record::CpuShare*>>& saturated_by_core,
               int samples, double fraction) {
  const size_t needed =
      static_cast<size_t>(std::floor(fraction * static_cast<double>(samples))) + 1;
  double best = -1;
  int core = -1;
  for (const auto& [cpu, shares] : saturated_by_core) {
    if (shares.size() < needed) continue;
    double user_system = 0;
    for (const record::CpuShare* c : shares) user_system += UserSystem(*c);
    user_system /= static_cast<double>(shares.size());
    if (user_system > best) {
      best = user_system;
      core = cpu;
    }
  }
  return core;
}

// `out`'s mean shares of the chosen core over the samples where it was saturated.
void AverageShares(const std::vector<const record::CpuShare*>& chosen, CoreSaturation& out) {
  for (const record::CpuShare* c : chosen) {
    out.busy += c->Busy();
    out.user += c->user + c->nice;
    out.system += c->system;
    out.irq += c->irq;
    out.softirq += c->softirq;
    out.steal += c->steal;
  }
  const double n = static_cast<double>(chosen.size());
  for (double* v : {&out.busy, &out.user, &out.system, &out.irq, &out.softirq, &out.steal}) *v /= n;
}

// `core` in each counted sample that carries per-CPU shares (those TallySamples counts).
std::vector<CoreInterval> CoreIntervals(const record::RunRecord& run,
                                        const record::EndpointRecord& end, int core,
                                        const SaturationLimits& limits) {
  const Samples samples = CountedSamples(run, end);
  const record::EndpointRecord* peer = SharedPeer(run, end);
  const Samples peer_samples = peer ? CountedSamples(run, *peer) : Samples{};
  const record::EndpointRecord* pinned = PinnedEnd(run, end, core);
  std::vector<CoreInterval> out;
  for (size_t i = 0; i < samples.size(); ++i) {
    const auto* cpus = samples[i]->cpus.get();
    if (cpus == nullptr || cpus->empty()) continue;
    CoreInterval& ci = out.emplace_back();
    const record::HostInterval* theirs = i < peer_samples.size() ? peer_samples[i] : nullptr;
    ci.process = ProcessPercent(*samples[i]);
    ci.wait = RunQueueWaitShare(*samples[i]);
    if (theirs != nullptr) {
      ci.peer_process = ProcessPercent(*theirs);
      ci.peer_wait = RunQueueWaitShare(*theirs);
    }
    if (pinned != nullptr) ci.pinned_process = pinned == &end ? ci.process : ci.peer_process;
    double host_user_system = 0;
    for (const record::CpuShare& c : *cpus) {
      host_user_system += UserSystem(c);
      if (c.cpu != core) continue;
      ci.saturated = c.Busy() >= limits.core_busy_percent;
      ci.user_system = UserSystem(c);
      ci.steal = c.steal;
    }
    if (auto all = ProcessesOnHost(*samples[i], peer != nullptr, peer_samples, i)) {
      ci.others = std::max(0.0, host_user_system - all->sum);
      ci.core_process = all->largest;
    }
  }
  return out;
}

}  // namespace

double CompetitorShare(double user_system, std::optional<double> pinned_process,
                       std::optional<double> others, std::optional<double> core_process) {
  if (pinned_process) return std::max(0.0, user_system - *pinned_process);
  if (!others || !core_process) return 0;
  return std::max(0.0, std::min(user_system - *core_process, *others));
}

std::optional<double> ProcessPercent(const record::HostInterval& sample) {
  const record::ProcessUsage* p = sample.process.get();
  const double dt = SampleSeconds(sample);
  if (p == nullptr || dt <= 0) return std::nullopt;
  return (p->user_seconds + p->system_seconds) / dt * 100.0;
}

std::optional<double> RunQueueWaitShare(const record::HostInterval& sample) {
  const record::RunQueueDelay* q = sample.run_queue.get();
  const double dt = SampleSeconds(sample);
  if (q == nullptr || dt <= 0) return std::nullopt;
  return q->waiting_seconds / dt;
}

std::optional<double> MeanProcessPercent(const record::RunRecord& run,
                                         const record::EndpointRecord& end) {
  return MeanOver(CountedSamples(run, end), ProcessPercent);
}

std::optional<double> MeanRunQueueWait(const record::RunRecord& run,
                                       const record::EndpointRecord& end) {
  return MeanOver(CountedSamples(run, end), RunQueueWaitShare);
}

std::vector<int> AllowedCpus(const record::RunRecord& run, const record::EndpointRecord& end) {
  const Samples samples = CountedSamples(run, end);
  for (auto it = samples.rbegin(); it != samples.rend(); ++it) {
    if (const auto* usage = (*it)->process.get(); usage && !usage->allowed_cpus.empty()) {
      return usage->allowed_cpus;
    }
  }
  return {};
}

double CoreSaturation::CompetitorPercent() const {
  return CompetitorShare(user + system, pinned_process_percent, others_percent,
                         core_process_percent);
}

CoreSaturation SaturatedCore(const record::RunRecord& run, const record::EndpointRecord& end,
                             const SaturationLimits& limits) {
  CoreSaturation out;
  const Tally tally = TallySamples(run, end, limits, out);
  SetProcessFigures(tally, out);
  out.core = ChooseCore(tally.saturated_by_core, out.samples, limits.saturated_interval_fraction);
  if (out.core < 0) return out;
  AverageShares(tally.saturated_by_core.at(out.core), out);
  if (const record::EndpointRecord* pinned = PinnedEnd(run, end, out.core)) {
    out.pinned_process_percent = MeanProcessPercent(run, *pinned);
  }
  out.run_queue_wait = MeanRunQueueWait(run, end);
  out.intervals = CoreIntervals(run, end, out.core, limits);
  return out;
}

}  // namespace nicbench::analysis
