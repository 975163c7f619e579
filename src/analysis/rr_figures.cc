// A request/response test's figures, read off the record's RrSummary (the engine summed its
// flows' histograms, docs/rr.md), and its service demand, computed here from the transactions,
// the CPU times and the host samples the record holds; each unknown with its reason where the
// test did not measure it, so compare and the store show "-" instead of a zero.
#include "analysis/figures.h"
#include "analysis/unknown_figure.h"

namespace nicbench::analysis {
namespace {

using record::Measured;
using record::Missing;

Measured<double> Known(const std::optional<double>& v, const char* why) {
  if (v) return *v;
  return UnknownFigure(Missing::kNotReported, why);
}

void FillLatency(const std::optional<record::LatencySummary>& l, RrFigures& f) {
  if (!l || l->count == 0) {
    const Measured<double> none =
        UnknownFigure(Missing::kAbsent, "no transaction timed at this end");
    f.latency_p50_us = f.latency_p90_us = f.latency_p99_us = f.latency_p999_us = none;
    f.latency_max_us = f.latency_mean_us = none;
    return;
  }
  f.latency_p50_us = l->p50_us;
  f.latency_p90_us = l->p90_us;
  f.latency_p99_us = l->p99_us;
  f.latency_p999_us = l->p999_us;
  f.latency_max_us = l->max_us;
  f.latency_mean_us = l->mean_us;
}

// CPU-seconds every core of a host was busy over the intervals past the warm-up, from the host
// samples aligned with the intervals (sample i covers interval i); nullopt without samples.
std::optional<double> HostBusySeconds(const record::EndpointRecord& end) {
  double busy = 0;
  bool any = false;
  for (size_t i = 0; i < end.samples.size() && i < end.intervals.size(); ++i) {
    if (end.intervals[i].omitted) continue;
    const record::HostInterval& s = end.samples[i];
    const auto* total = s.cpu_total.get();
    const auto* cpus = s.cpus.get();
    if (total == nullptr || cpus == nullptr || cpus->empty()) continue;
    busy += total->Busy() / 100.0 * SampleSeconds(s) * static_cast<double>(cpus->size());
    any = true;
  }
  if (!any) return std::nullopt;
  return busy;
}

// A process's CPU-seconds over the test, from its share (iperf3's cpu_utilization_percent).
std::optional<double> ProcessSeconds(const record::Measured<record::CpuUtilization>& cpu,
                                     double seconds) {
  if (!cpu.known() || seconds <= 0) return std::nullopt;
  return cpu.value().total_percent / 100.0 * seconds;
}

std::optional<double> PerTransaction(std::optional<double> cpu_seconds, uint64_t transactions) {
  if (!cpu_seconds || transactions == 0) return std::nullopt;
  return *cpu_seconds * 1e6 / static_cast<double>(transactions);
}

// An older record's figure when it carries one, else `computed()`.
template <typename Compute>
std::optional<double> RecordedOr(const std::optional<double>& recorded, Compute computed) {
  return recorded ? recorded : computed();
}

}  // namespace

RrServiceDemand ComputeRrServiceDemand(const record::RunRecord& run) {
  RrServiceDemand d;
  if (!run.rr) return d;
  const record::RrSummary& s = *run.rr;
  const uint64_t n = s.local.transactions;
  d.local_process_us = RecordedOr(s.local_process_us_per_transaction, [&] {
    return PerTransaction(ProcessSeconds(run.local.cpu, run.test_seconds), n);
  });
  d.local_host_us = RecordedOr(s.local_host_us_per_transaction,
                               [&] { return PerTransaction(HostBusySeconds(run.local), n); });
  const bool client = RoleOf(run.local) == Role::kClient;
  d.remote_process_us = RecordedOr(s.remote_process_us_per_transaction, [&] {
    if (!client) return std::optional<double>();
    return PerTransaction(ProcessSeconds(run.peer.cpu, run.test_seconds), n);
  });
  d.remote_host_us = RecordedOr(s.remote_host_us_per_transaction, [&] {
    const record::EndpointRecord* remote = run.remote.get();
    if (!client || remote == nullptr) return std::optional<double>();
    return PerTransaction(HostBusySeconds(*remote), n);
  });
  return d;
}

record::RrSummary RrSummaryWithDemand(const record::RunRecord& run) {
  record::RrSummary s = *run.rr;
  const RrServiceDemand d = ComputeRrServiceDemand(run);
  s.local_process_us_per_transaction = d.local_process_us;
  s.remote_process_us_per_transaction = d.remote_process_us;
  s.local_host_us_per_transaction = d.local_host_us;
  s.remote_host_us_per_transaction = d.remote_host_us;
  return s;
}

RrFigures ComputeRrFigures(const record::RunRecord& run) {
  RrFigures f;
  if (!run.spec.rr.enabled() || !run.rr) return f;  // every figure unknown (absent)
  const record::RrSummary& s = *run.rr;
  f.transactions_per_second = record::TransactionsPerSecond(s.local);
  FillLatency(s.local.latency, f);
  if (s.local.connect && s.local.connect->count > 0) {
    f.connect_p50_us = s.local.connect->p50_us;
    f.connect_p99_us = s.local.connect->p99_us;
  } else {
    f.connect_p50_us = f.connect_p99_us =
        UnknownFigure(Missing::kAbsent, run.spec.rr.mode == record::RrMode::kCrr
                                            ? "no connection timed at this end"
                                            : "not a CRR test: the flows keep their connections");
  }
  if (run.spec.transport == record::Transport::kUdp) {
    f.lost = static_cast<double>(s.local.lost);
    f.late = static_cast<double>(s.local.late);
  } else {
    f.lost = f.late = UnknownFigure(Missing::kAbsent, "not UDP: TCP loses no transaction");
  }
  const bool local_client = RoleOf(run.local) == Role::kClient;
  const char* why = "the end did not report its CPU time";
  const RrServiceDemand demand = ComputeRrServiceDemand(run);
  Measured<double> local_process = Known(demand.local_process_us, why);
  Measured<double> remote_process = Known(demand.remote_process_us, why);
  Measured<double> local_host = Known(demand.local_host_us, "no host samples");
  Measured<double> remote_host = Known(demand.remote_host_us, "no host samples");
  f.client_process_us_per_transaction = local_client ? local_process : remote_process;
  f.server_process_us_per_transaction = local_client ? remote_process : local_process;
  f.client_host_us_per_transaction = local_client ? local_host : remote_host;
  f.server_host_us_per_transaction = local_client ? remote_host : local_host;
  return f;
}

}  // namespace nicbench::analysis
