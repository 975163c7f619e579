// The indexed columns of a run, computed once when it is stored, so `history` and `compare` read
// figures without parsing records. Every figure comes from analysis (figures.h, cost.h), the ones
// the cpu-cost finding prints and compare computes, so the store and the report never disagree.
#include "store/summary.h"

#include <utility>

#include "analysis/differs.h"
#include "analysis/figures.h"
#include "analysis/frequency.h"
#include "record/json.h"

namespace nicbench::store {
namespace {

using record::RunRecord;

std::string HostnameOf(const record::EndpointRecord& end) {
  return end.host.hostname.known() ? end.host.hostname.value() : std::string();
}

std::optional<double> ValueOf(const record::Measured<double>& m) {
  return m.known() ? std::optional<double>(m.value()) : std::nullopt;
}

std::optional<double> Sum(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a) return b;
  return b ? std::optional<double>(*a + *b) : a;
}

// Each direction's goodput, and both summed (what `history` shows), as analysis computes them.
void FillGoodput(const analysis::RunFigures& f, RunSummary& s) {
  for (auto [from, to] : {std::pair{&f.client_to_server, &s.client_to_server},
                          std::pair{&f.server_to_client, &s.server_to_client}}) {
    to->sender_bits_per_second = ValueOf(from->sender_bits_per_second);
    to->receiver_bits_per_second = ValueOf(from->receiver_bits_per_second);
  }
  s.sender_bits_per_second =
      Sum(s.client_to_server.sender_bits_per_second, s.server_to_client.sender_bits_per_second);
  s.receiver_bits_per_second =
      Sum(s.client_to_server.receiver_bits_per_second, s.server_to_client.receiver_bits_per_second);
}

void FillTcp(const analysis::RunFigures& f, RunSummary& s) {
  if (f.retransmits.known()) s.retransmits = static_cast<int64_t>(f.retransmits.value());
  s.mean_rtt_us = ValueOf(f.mean_rtt_us);
}

// The transfer's CPU cost and the NIC's interrupts of each end, as analysis computes them.
void FillCosts(const analysis::RunFigures& f, RunSummary& s) {
  s.client_cpu_seconds_per_gb = ValueOf(f.client.cpu_seconds_per_gigabyte);
  s.server_cpu_seconds_per_gb = ValueOf(f.server.cpu_seconds_per_gigabyte);
  s.client_interrupts_per_gb = ValueOf(f.client.nic_interrupts_per_gigabyte);
  s.server_interrupts_per_gb = ValueOf(f.server.nic_interrupts_per_gigabyte);
}

void FillRr(const RunRecord& run, const analysis::RrFigures& f, RunSummary& s) {
  if (!run.spec.rr.enabled()) return;
  RunSummary::Rr& r = s.rr;
  r.mode = record::RrModeName(run.spec.rr.mode);
  r.transactions_per_second = ValueOf(f.transactions_per_second);
  r.p50_us = ValueOf(f.latency_p50_us);
  r.p90_us = ValueOf(f.latency_p90_us);
  r.p99_us = ValueOf(f.latency_p99_us);
  r.p999_us = ValueOf(f.latency_p999_us);
  r.max_us = ValueOf(f.latency_max_us);
  r.mean_us = ValueOf(f.latency_mean_us);
  r.connect_p50_us = ValueOf(f.connect_p50_us);
  r.connect_p99_us = ValueOf(f.connect_p99_us);
  r.lost = ValueOf(f.lost);
  r.late = ValueOf(f.late);
  r.client_process_us_per_transaction = ValueOf(f.client_process_us_per_transaction);
  r.server_process_us_per_transaction = ValueOf(f.server_process_us_per_transaction);
  r.client_host_us_per_transaction = ValueOf(f.client_host_us_per_transaction);
  r.server_host_us_per_transaction = ValueOf(f.server_host_us_per_transaction);
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
  const analysis::RunFigures figures = analysis::ComputeFigures(run);
  FillGoodput(figures, s);
  FillTcp(figures, s);
  FillCosts(figures, s);
  FillRr(run, figures.rr, s);
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
