// A request/response test's figures, read off the record's RrSummary (the engine computed them
// from its histograms, docs/rr.md), each unknown with its reason where the test did not measure
// it, so compare and the store show "-" instead of a zero.
#include "analysis/figures.h"

namespace nicbench::analysis {
namespace {

using record::Measured;
using record::Missing;

Measured<double> Unknown(Missing why, const char* detail) {
  return Measured<double>::Unknown(why, detail);
}

Measured<double> Known(const std::optional<double>& v, const char* why) {
  if (v) return *v;
  return Unknown(Missing::kNotReported, why);
}

void FillLatency(const std::optional<record::LatencySummary>& l, RrFigures& f) {
  if (!l || l->count == 0) {
    const Measured<double> none = Unknown(Missing::kAbsent, "no transaction timed at this end");
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

}  // namespace

RrFigures ComputeRrFigures(const record::RunRecord& run) {
  RrFigures f;
  if (!run.spec.rr.enabled() || !run.rr) return f;  // every figure unknown (absent)
  const record::RrSummary& s = *run.rr;
  f.transactions_per_second = s.local.transactions_per_second;
  FillLatency(s.local.latency, f);
  if (s.local.connect && s.local.connect->count > 0) {
    f.connect_p50_us = s.local.connect->p50_us;
    f.connect_p99_us = s.local.connect->p99_us;
  } else {
    f.connect_p50_us = f.connect_p99_us =
        Unknown(Missing::kAbsent, run.spec.rr.mode == record::RrMode::kCrr
                                      ? "no connection timed at this end"
                                      : "not a CRR test: the flows keep their connections");
  }
  if (run.spec.transport == record::Transport::kUdp) {
    f.lost = static_cast<double>(s.local.lost);
    f.late = static_cast<double>(s.local.late);
  } else {
    f.lost = f.late = Unknown(Missing::kAbsent, "not UDP: TCP loses no transaction");
  }
  const bool local_client = RoleOf(run.local) == Role::kClient;
  const char* why = "the end did not report its CPU time";
  Measured<double> local_process = Known(s.local_process_us_per_transaction, why);
  Measured<double> remote_process = Known(s.remote_process_us_per_transaction, why);
  Measured<double> local_host = Known(s.local_host_us_per_transaction, "no host samples");
  Measured<double> remote_host = Known(s.remote_host_us_per_transaction, "no host samples");
  f.client_process_us_per_transaction = local_client ? local_process : remote_process;
  f.server_process_us_per_transaction = local_client ? remote_process : local_process;
  f.client_host_us_per_transaction = local_client ? local_host : remote_host;
  f.server_host_us_per_transaction = local_client ? remote_host : local_host;
  return f;
}

}  // namespace nicbench::analysis
