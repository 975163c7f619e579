// The indexed columns of a run, computed once when it is stored, so `history` and `compare` read
// figures without parsing records. The figures are the table of figures' (analysis/
// figure_table.h), the ones the findings print and compare computes, so the store and the report
// never disagree.
#include "store/summary.h"

#include <utility>

#include "analysis/differs.h"
#include "analysis/figure_table.h"
#include "analysis/frequency.h"
#include "record/json.h"

namespace nicbench::store {
namespace {

using record::RunRecord;

std::string HostnameOf(const record::EndpointRecord& end) {
  return end.host.hostname.known() ? end.host.hostname.value() : std::string();
}

void FillTopFinding(const RunRecord& run, RunSummary& s) {
  const record::Finding* top = nullptr;
  for (const record::Finding& f : run.findings) {
    if (top == nullptr || f.severity > top->severity) top = &f;
  }
  if (top == nullptr) return;
  s.top_finding = top->id;
  s.top_severity = record::SeverityName(top->severity);
}

nlohmann::json EndFacts(const RunRecord& run, const record::EndpointRecord& end) {
  return {{"role", end.role},
          {"software", end.software},
          {"host", end.host},
          {"nic", end.nic},
          {"congestion_used", end.congestion_used},
          // Judged from the samples, which the facts do not keep: computed here, once.
          {analysis::kCpuFrequencyFact, analysis::BusiestCoreFrequencyText(run, end)}};
}

}  // namespace

RunSummary Summarize(const RunRecord& run) {
  RunSummary s;
  s.timestamp = run.timestamp;
  s.timestamp_secs = run.timestamp_secs;
  const bool local_client = run.local.role != record::Role::kServer;
  const std::string local_name = HostnameOf(run.local);
  const std::string remote_name = run.remote.known() ? HostnameOf(run.remote.value()) : "";
  s.client_host = local_client ? local_name : remote_name;
  s.server_host = local_client ? remote_name : local_name;
  s.peer = run.server_host;
  s.direction = record::DirectionName(run.spec.direction);
  s.protocol = run.spec.transport == record::Transport::kTcp ? "tcp" : "udp";
  s.streams = run.spec.parallel;
  s.duration_seconds = run.test_seconds;
  s.incomplete = run.incomplete;
  if (run.spec.rr.enabled()) s.rr_mode = record::RrModeName(run.spec.rr.mode);
  s.figures = analysis::ComputeFigureValues(run);
  FillTopFinding(run, s);
  return s;
}

nlohmann::json FactsOf(const RunRecord& run) {
  const bool local_client = run.local.role != record::Role::kServer;
  nlohmann::json local = EndFacts(run, run.local);
  nlohmann::json remote = run.remote.known() ? EndFacts(run, run.remote.value()) : nlohmann::json();
  return {{"spec", run.spec},
          {"client", local_client ? local : remote},
          {"server", local_client ? remote : local}};
}

}  // namespace nicbench::store
