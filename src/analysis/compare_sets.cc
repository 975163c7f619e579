#include "analysis/compare_sets.h"

#include <algorithm>
#include <string_view>

namespace nicbench::analysis {
namespace {

using record::Measured;

Measured<double> CsReceiver(const RunFigures& f) {
  return f.client_to_server.receiver_bits_per_second;
}
Measured<double> CsSender(const RunFigures& f) { return f.client_to_server.sender_bits_per_second; }
Measured<double> ScReceiver(const RunFigures& f) {
  return f.server_to_client.receiver_bits_per_second;
}
Measured<double> ScSender(const RunFigures& f) { return f.server_to_client.sender_bits_per_second; }
Measured<double> ClientCpu(const RunFigures& f) { return f.client.cpu_seconds_per_gigabyte; }
Measured<double> ServerCpu(const RunFigures& f) { return f.server.cpu_seconds_per_gigabyte; }
Measured<double> ClientIrq(const RunFigures& f) { return f.client.nic_interrupts_per_gigabyte; }
Measured<double> ServerIrq(const RunFigures& f) { return f.server.nic_interrupts_per_gigabyte; }
Measured<double> Retransmits(const RunFigures& f) { return f.retransmits; }
Measured<double> Rtt(const RunFigures& f) { return f.mean_rtt_us; }
// Request/response tests (docs/rr.md): unknown for bulk runs, so compare of bulk runs is as it was.
Measured<double> Tps(const RunFigures& f) { return f.rr.transactions_per_second; }
Measured<double> LatencyP50(const RunFigures& f) { return f.rr.latency_p50_us; }
Measured<double> LatencyP90(const RunFigures& f) { return f.rr.latency_p90_us; }
Measured<double> LatencyP99(const RunFigures& f) { return f.rr.latency_p99_us; }
Measured<double> LatencyP999(const RunFigures& f) { return f.rr.latency_p999_us; }
Measured<double> LatencyMax(const RunFigures& f) { return f.rr.latency_max_us; }
Measured<double> LatencyMean(const RunFigures& f) { return f.rr.latency_mean_us; }
Measured<double> ConnectP50(const RunFigures& f) { return f.rr.connect_p50_us; }
Measured<double> ConnectP99(const RunFigures& f) { return f.rr.connect_p99_us; }
Measured<double> Lost(const RunFigures& f) { return f.rr.lost; }
Measured<double> Late(const RunFigures& f) { return f.rr.late; }
Measured<double> ClientProcess(const RunFigures& f) {
  return f.rr.client_process_us_per_transaction;
}
Measured<double> ServerProcess(const RunFigures& f) {
  return f.rr.server_process_us_per_transaction;
}
Measured<double> ClientHost(const RunFigures& f) { return f.rr.client_host_us_per_transaction; }
Measured<double> ServerHost(const RunFigures& f) { return f.rr.server_host_us_per_transaction; }

MetricValues Collect(const Metric& m, const std::vector<const RunInput*>& runs) {
  MetricValues out;
  for (const RunInput* run : runs) {
    const Measured<double> v = m.get(run->figures);
    if (v.known()) {
      out.values.push_back(v.value());
    } else {
      ++out.unknown;
    }
  }
  return out;
}

std::optional<record::Direction> CommonDirection(const std::vector<const RunInput*>& a,
                                                 const std::vector<const RunInput*>& b) {
  std::optional<record::Direction> common;
  for (const auto* set : {&a, &b}) {
    for (const RunInput* run : *set) {
      if (common && *common != run->direction) return std::nullopt;
      common = run->direction;
    }
  }
  return common;
}

bool IsRrRun(const RunInput* run) { return run->figures.rr.transactions_per_second.known(); }

// Goodput and cost per gigabyte of a test that moves a few bytes per round trip say nothing
// about it: sets of request/response runs only compare by their own metrics (and TCP's).
bool PerByteMetric(const Metric& m) {
  const std::string_view key = m.key;
  return key.starts_with("goodput_") || key.ends_with("_per_gigabyte");
}

bool AllRr(const std::vector<const RunInput*>& a, const std::vector<const RunInput*>& b) {
  if (a.empty() && b.empty()) return false;
  return std::all_of(a.begin(), a.end(), IsRrRun) && std::all_of(b.begin(), b.end(), IsRrRun);
}

std::vector<const std::vector<Fact>*> FactsOfSet(const std::vector<const RunInput*>& runs) {
  std::vector<const std::vector<Fact>*> out;
  out.reserve(runs.size());
  for (const RunInput* run : runs) out.push_back(&run->facts);
  return out;
}

}  // namespace

const std::vector<Metric>& Metrics() {
  using enum record::Role;  // the enum itself: clang 14 takes no alias in a using-enum
  static const std::vector<Metric> kMetrics = {
      {"goodput_client_to_server_bits_per_second", "goodput client->server (receiver)", "bit/s",
       std::nullopt, CsReceiver},
      {"goodput_client_to_server_sender_bits_per_second", "goodput client->server (sender)",
       "bit/s", std::nullopt, CsSender},
      {"goodput_server_to_client_bits_per_second", "goodput server->client (receiver)", "bit/s",
       std::nullopt, ScReceiver},
      {"goodput_server_to_client_sender_bits_per_second", "goodput server->client (sender)",
       "bit/s", std::nullopt, ScSender},
      {"client_cpu_seconds_per_gigabyte", "CPU per GB", "CPU-s/GB", kClient, ClientCpu},
      {"server_cpu_seconds_per_gigabyte", "CPU per GB", "CPU-s/GB", kServer, ServerCpu},
      {"client_nic_interrupts_per_gigabyte", "NIC interrupts per GB", "irq/GB", kClient, ClientIrq},
      {"server_nic_interrupts_per_gigabyte", "NIC interrupts per GB", "irq/GB", kServer, ServerIrq},
      {"retransmits", "retransmits", "segments", std::nullopt, Retransmits},
      {"mean_rtt_us", "mean RTT", "us", std::nullopt, Rtt},
      {"rr_transactions_per_second", "transactions/s", "tx/s", std::nullopt, Tps},
      {"rr_latency_p50_us", "latency p50", "us", std::nullopt, LatencyP50},
      {"rr_latency_p90_us", "latency p90", "us", std::nullopt, LatencyP90},
      {"rr_latency_p99_us", "latency p99", "us", std::nullopt, LatencyP99},
      {"rr_latency_p99_9_us", "latency p99.9", "us", std::nullopt, LatencyP999},
      {"rr_latency_max_us", "latency max", "us", std::nullopt, LatencyMax},
      {"rr_latency_mean_us", "latency mean", "us", std::nullopt, LatencyMean},
      {"rr_connect_p50_us", "connect p50", "us", std::nullopt, ConnectP50},
      {"rr_connect_p99_us", "connect p99", "us", std::nullopt, ConnectP99},
      {"rr_lost", "lost transactions", "transactions", std::nullopt, Lost},
      {"rr_late", "late responses", "transactions", std::nullopt, Late},
      {"rr_client_process_us_per_transaction", "CPU per transaction (process)", "us/tx", kClient,
       ClientProcess},
      {"rr_server_process_us_per_transaction", "CPU per transaction (process)", "us/tx", kServer,
       ServerProcess},
      {"rr_client_host_us_per_transaction", "CPU per transaction (whole host)", "us/tx", kClient,
       ClientHost},
      {"rr_server_host_us_per_transaction", "CPU per transaction (whole host)", "us/tx", kServer,
       ServerHost},
  };
  return kMetrics;
}

RunInput RunInputOf(const record::RunRecord& run, int64_t id) {
  return RunInput{id, ComputeFigures(run), FactsOf(run), run.spec.direction};
}

SetComparison CompareInputs(const std::vector<const RunInput*>& a,
                            const std::vector<const RunInput*>& b) {
  SetComparison out;
  out.runs_a = static_cast<int>(a.size());
  out.runs_b = static_cast<int>(b.size());
  out.direction = CommonDirection(a, b);
  const bool rr_only = AllRr(a, b);
  for (const Metric& m : Metrics()) {
    if (rr_only && PerByteMetric(m)) continue;
    MetricComparison c;
    c.metric = &m;
    c.a = Collect(m, a);
    c.b = Collect(m, b);
    if (c.a.values.empty() && c.b.values.empty()) continue;
    c.comparison = Compare(c.a.values, c.b.values);
    out.metrics.push_back(std::move(c));
  }
  out.differs = WhatDiffers(FactsOfSet(a), FactsOfSet(b));
  return out;
}

SetComparison CompareSets(const std::vector<const record::RunRecord*>& a,
                          const std::vector<const record::RunRecord*>& b) {
  std::vector<RunInput> ia, ib;
  for (const record::RunRecord* run : a) ia.push_back(RunInputOf(*run));
  for (const record::RunRecord* run : b) ib.push_back(RunInputOf(*run));
  std::vector<const RunInput*> pa, pb;
  for (const RunInput& r : ia) pa.push_back(&r);
  for (const RunInput& r : ib) pb.push_back(&r);
  return CompareInputs(pa, pb);
}

std::string EndLabel(Role role, std::optional<record::Direction> direction) {
  std::string label = RoleName(role);
  if (!direction || *direction == record::Direction::kBidirectional) return label;
  return label + (DutyOf(role, *direction).sends ? " (sender)" : " (receiver)");
}

bool IsRrMetric(const Metric& metric) { return std::string_view(metric.key).starts_with("rr_"); }

std::string MetricName(const Metric& metric, std::optional<record::Direction> direction) {
  if (!metric.end) return metric.what;
  // Both ends of a transaction send and receive: sender/receiver would mislead.
  if (IsRrMetric(metric)) return std::string(RoleName(*metric.end)) + " " + metric.what;
  return EndLabel(*metric.end, direction) + " " + metric.what;
}

}  // namespace nicbench::analysis
