// The cost figures of cost.h: each end's counted samples summed into CPU-seconds by kind, then
// divided by the gigabytes that moved through the end while they were taken.
#include "analysis/cost.h"

#include <algorithm>
#include <numeric>

#include "analysis/figures.h"
#include "analysis/host_figures.h"

namespace nicbench::analysis {
namespace {

using record::Measured;
using record::Missing;

// A core ran the flows' packet work when it took at least this share of the softirqs.
constexpr double kFlowCoreShare = 0.05;

// Cores that took at least kFlowCoreShare of `counts` (per CPU, summed over the test).
std::vector<int> CoresAbove(const std::vector<uint64_t>& counts) {
  const uint64_t total = std::accumulate(counts.begin(), counts.end(), uint64_t{0});
  std::vector<int> cores;
  if (total == 0) return cores;
  for (size_t c = 0; c < counts.size(); ++c) {
    if (static_cast<double>(counts[c]) >= kFlowCoreShare * static_cast<double>(total)) {
      cores.push_back(static_cast<int>(c));
    }
  }
  return cores;
}

// The cores that carried the flows: by NET_RX+NET_TX softirqs, else by the NIC's interrupts.
std::vector<int> FlowCores(const record::RunRecord& run, const record::EndpointRecord& end) {
  std::vector<uint64_t> softirqs;
  for (const auto* s : CountedSamples(run, end)) {
    for (const auto* column : {s->net_rx_softirqs.get(), s->net_tx_softirqs.get()}) {
      if (column == nullptr) continue;
      if (softirqs.size() < column->size()) softirqs.resize(column->size());
      for (size_t c = 0; c < column->size(); ++c) softirqs[c] += (*column)[c];
    }
  }
  std::vector<int> cores = CoresAbove(softirqs);
  return cores.empty() ? CoresAbove(CountNicInterrupts(run, end).per_cpu) : cores;
}

// CPU-seconds over an end's counted samples.
struct Spent {
  double seconds = 0;           // wall time of the samples with CPU shares
  double host_busy = 0;         // every core's busy time
  double softirq = 0, irq = 0;  // on the flow cores
  double user = 0, system = 0;  // this end's process
  double processes = 0;         // every nicbench process on the host (both ends when shared)
  bool have_process = true;
};

double ProcessSeconds(const record::HostInterval& s) {
  const record::ProcessUsage* p = s.process.get();
  return p ? p->user_seconds + p->system_seconds : 0;
}

Spent Add(const record::RunRecord& run, const record::EndpointRecord& end,
          const std::vector<int>& cores) {
  Spent out;
  auto samples = CountedSamples(run, end);
  const record::EndpointRecord* other = SharedPeer(run, end);
  auto other_samples = other ? CountedSamples(run, *other) : decltype(samples){};
  for (size_t i = 0; i < samples.size(); ++i) {
    const record::HostInterval& s = *samples[i];
    const record::ProcessUsage* p = s.process.get();
    out.have_process = out.have_process && p != nullptr;
    if (p) out.user += p->user_seconds, out.system += p->system_seconds;
    out.processes += ProcessSeconds(s);
    if (other && i < other_samples.size()) out.processes += ProcessSeconds(*other_samples[i]);
    const auto* cpus = s.cpus.get();
    if (cpus == nullptr) continue;
    const double dt = SampleSeconds(s);
    out.seconds += dt;
    for (const record::CpuShare& c : *cpus) {
      if (std::find(cores.begin(), cores.end(), c.cpu) == cores.end()) continue;
      out.softirq += c.softirq / 100 * dt;
      out.irq += c.irq / 100 * dt;
    }
  }
  if (samples.empty()) out.have_process = false;
  // The whole host's busy time by the one rule the summary's kind split also uses.
  if (const auto host = HostCpuSeconds(samples)) out.host_busy = host->total;
  return out;
}

Measured<double> PerGigabyte(bool known, double seconds, double gigabytes, const char* why) {
  if (!known) return Measured<double>::Unknown(Missing::kNotReported, why);
  return seconds / gigabytes;
}

void SetAll(EndCost& cost, const Measured<double>& value) {
  cost.process_user_seconds_per_gigabyte = cost.process_system_seconds_per_gigabyte = value;
  cost.softirq_seconds_per_gigabyte = cost.irq_seconds_per_gigabyte = value;
  cost.cpu_seconds_per_gigabyte = cost.host_cpu_seconds_per_gigabyte = value;
  cost.nic_interrupts_per_gigabyte = value;
  cost.host_idle_percent = value;
}

// Percent of all the host's CPUs idle over the end's counted samples.
Measured<double> IdlePercent(const record::RunRecord& run, const record::EndpointRecord& end) {
  const std::optional<double> busy = BusyCores(run, end);
  size_t cpus = 0;
  for (const record::HostInterval* s : CountedSamples(run, end)) {
    if (const auto* shares = s->cpus.get()) cpus = std::max(cpus, shares->size());
  }
  if (!busy || cpus == 0) return Measured<double>::Unknown(Missing::kAbsent, "no CPU samples");
  return std::clamp(100 * (1 - *busy / static_cast<double>(cpus)), 0.0, 100.0);
}

void FillCpu(EndCost& cost, const Spent& spent, double gigabytes) {
  const bool process = spent.have_process;
  const char* no_process = "no process samples";
  cost.process_user_seconds_per_gigabyte = PerGigabyte(process, spent.user, gigabytes, no_process);
  cost.process_system_seconds_per_gigabyte =
      PerGigabyte(process, spent.system, gigabytes, no_process);
  const bool cores = !cost.flow_cores.empty();
  const char* no_cores = "no softirq or NIC interrupt counts";
  cost.softirq_seconds_per_gigabyte = PerGigabyte(cores, spent.softirq, gigabytes, no_cores);
  cost.irq_seconds_per_gigabyte = PerGigabyte(cores, spent.irq, gigabytes, no_cores);
  const double packet_work = cores ? spent.softirq + spent.irq : 0;
  cost.cpu_seconds_per_gigabyte =
      PerGigabyte(process, spent.user + spent.system + packet_work, gigabytes, no_process);
  cost.host_cpu_seconds_per_gigabyte = spent.host_busy / gigabytes;
  if (process && spent.host_busy > 0) {
    const double explained = spent.processes + packet_work;
    cost.other_load_fraction = std::clamp(1 - explained / spent.host_busy, 0.0, 1.0);
  }
}

}  // namespace

bool SharedHost(const record::RunRecord& run) {
  if (!run.remote.known()) return false;
  const auto& a = run.local.host;
  const auto& b = run.remote.value().host;
  if (!a.hostname.known() || !b.hostname.known()) return false;
  if (a.hostname.value() != b.hostname.value()) return false;
  return a.cpu_count.value_or(-1) == b.cpu_count.value_or(-2) ||
         (!a.cpu_count.known() && !b.cpu_count.known());
}

const record::EndpointRecord* SharedPeer(const record::RunRecord& run,
                                         const record::EndpointRecord& end) {
  if (!SharedHost(run)) return nullptr;
  return &end == &run.local ? &run.remote.value() : &run.local;
}

EndCost CostOf(const record::RunRecord& run, Role role) {
  EndCost cost;
  cost.role = role;
  cost.local = RoleOf(run.local) == role;
  const record::EndpointRecord* end = EndIn(run, role);
  if (end == nullptr) {
    SetAll(cost, Measured<double>::Unknown(Missing::kNotReported, "the peer does not report"));
    return cost;
  }
  const double bits = EndBitsPerSecond(run, role);
  cost.flow_cores = FlowCores(run, *end);
  if (!(bits > 0)) {
    SetAll(cost, Measured<double>::Unknown(Missing::kAbsent, "no data moved"));
    return cost;
  }
  const Spent spent = Add(run, *end, cost.flow_cores);
  if (spent.seconds > 0) {
    FillCpu(cost, spent, bits / 8 / 1e9 * spent.seconds);
    cost.host_idle_percent = IdlePercent(run, *end);
  } else {
    SetAll(cost, Measured<double>::Unknown(Missing::kAbsent, "no CPU samples"));
  }
  const NicInterrupts irqs = CountNicInterrupts(run, *end);
  if (irqs.total > 0 && irqs.seconds > 0) {
    cost.nic_interrupts_per_gigabyte = (irqs.total / irqs.seconds) / (bits / 8 / 1e9);
  } else {
    cost.nic_interrupts_per_gigabyte = Measured<double>::Unknown(
        Missing::kAbsent,
        IsSoftwareNic(end->nic) ? "no NIC interrupt lines" : "no NIC interrupts sampled");
  }
  cost.other_traffic = OtherTrafficOf(run, *end, role);
  cost.polluted = PollutionEvidence(cost.other_traffic);
  return cost;
}

std::vector<EndCost> Costs(const record::RunRecord& run) {
  const Role local = RoleOf(run.local);
  std::vector<EndCost> out{CostOf(run, local)};
  if (run.remote.known())
    out.push_back(CostOf(run, local == Role::kClient ? Role::kServer : Role::kClient));
  return out;
}

}  // namespace nicbench::analysis
