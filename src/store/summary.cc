// The indexed columns of a run, computed once when it is stored, so `history` and `compare` read
// figures without parsing records. CPU and interrupt cost come from analysis (cost.h), the figures
// the cpu-cost finding prints and compare computes, so the store and the report never disagree.
#include "store/summary.h"

#include <algorithm>

#include "analysis/figures.h"
#include "record/json.h"

namespace nicbench::store {
namespace {

using record::RunRecord;

std::string HostnameOf(const record::EndpointRecord& end) {
  return end.host.hostname.known() ? end.host.hostname.value() : std::string();
}

// Goodput of all streams (both directions of a bidirectional test), as sent and as received:
// bytes over the longest stream's duration, unknown when nothing was timed.
void FillGoodput(const RunRecord& run, RunSummary& s) {
  uint64_t sent = 0, received = 0;
  double sent_seconds = 0, received_seconds = 0;
  for (const record::StreamTotals& t : run.streams) {
    sent += t.bytes_sent;
    received += t.bytes_received;
    sent_seconds = std::max(sent_seconds, t.seconds_sent);
    received_seconds = std::max(received_seconds, t.seconds_received);
  }
  if (sent_seconds > 0) s.sender_bits_per_second = sent * 8.0 / sent_seconds;
  if (received_seconds > 0) s.receiver_bits_per_second = received * 8.0 / received_seconds;
}

// Retransmits summed over the streams that report them, and the mean of their mean RTTs.
void FillTcp(const RunRecord& run, RunSummary& s) {
  if (run.spec.transport != record::Transport::kTcp) return;
  int64_t retransmits = 0;
  bool any_retransmits = false;
  double rtt_sum = 0;
  int rtt_count = 0;
  for (const record::StreamTotals& t : run.streams) {
    if (t.retransmits.known()) {
      retransmits += static_cast<int64_t>(t.retransmits.value());
      any_retransmits = true;
    }
    if (t.mean_rtt_us.known()) {
      rtt_sum += t.mean_rtt_us.value();
      ++rtt_count;
    }
  }
  if (any_retransmits) s.retransmits = retransmits;
  if (rtt_count > 0) s.mean_rtt_us = rtt_sum / rtt_count;
}

std::optional<double> ValueOf(const record::Measured<double>& m) {
  return m.known() ? std::optional<double>(m.value()) : std::nullopt;
}

// The transfer's CPU cost and the NIC's interrupts of each end, as analysis computes them.
void FillCosts(const analysis::RunFigures& f, RunSummary& s) {
  s.client_cpu_seconds_per_gb = ValueOf(f.client.cpu_seconds_per_gigabyte);
  s.server_cpu_seconds_per_gb = ValueOf(f.server.cpu_seconds_per_gigabyte);
  s.client_interrupts_per_gb = ValueOf(f.client.nic_interrupts_per_gigabyte);
  s.server_interrupts_per_gb = ValueOf(f.server.nic_interrupts_per_gigabyte);
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

nlohmann::json EndFacts(const record::EndpointRecord& end) {
  return {{"role", end.role},
          {"software", end.software},
          {"host", end.host},
          {"nic", end.nic},
          {"congestion_used", end.congestion_used}};
}

}  // namespace

RunSummary Summarize(const RunRecord& run) {
  RunSummary s;
  s.timestamp = run.timestamp;
  s.timestamp_secs = run.timestamp_secs;
  const bool local_client = run.local.role != "server";
  const std::string local_name = HostnameOf(run.local);
  const std::string remote_name = run.remote.known() ? HostnameOf(run.remote.value()) : "";
  s.client_host = local_client ? local_name : remote_name;
  s.server_host = local_client ? remote_name : local_name;
  s.peer = run.server_host;
  s.direction = record::DirectionName(run.spec.direction);
  s.protocol = run.spec.transport == record::Transport::kTcp ? "tcp" : "udp";
  s.streams = run.spec.parallel;
  s.duration_seconds = run.test_seconds;
  FillGoodput(run, s);
  FillTcp(run, s);
  FillCosts(analysis::ComputeFigures(run), s);
  FillTopFinding(run, s);
  return s;
}

nlohmann::json FactsOf(const RunRecord& run) {
  const bool local_client = run.local.role != "server";
  nlohmann::json local = EndFacts(run.local);
  nlohmann::json remote = run.remote.known() ? EndFacts(run.remote.value()) : nlohmann::json();
  return {{"spec", run.spec},
          {"client", local_client ? local : remote},
          {"server", local_client ? remote : local}};
}

}  // namespace nicbench::store
