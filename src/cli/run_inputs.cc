// Selector's LoadInputs: compare's per-run inputs from the store's summary columns and facts, so
// two sets of a thousand runs compare without parsing two thousand whole records (bidirectional
// ones included: each direction's goodput has its columns).
#include <unordered_map>

#include <fmt/format.h>

#include "cli/selector.h"
#include "record/json.h"

namespace nicbench::cli {
namespace {

using record::Measured;
using record::Missing;

Measured<double> FromColumn(const std::optional<double>& v) {
  if (v) return *v;
  return Measured<double>::Unknown(Missing::kNotReported, "not in the stored summary");
}

record::Direction DirectionOf(const std::string& name) {
  if (name == "reverse") return record::Direction::kReverse;
  if (name == "bidirectional") return record::Direction::kBidirectional;
  return record::Direction::kForward;
}

// A direction the run did not send in carried nothing; the other is in its columns.
analysis::DirectionFigures GoodputOf(const store::RunSummary::Goodput& g, bool carried) {
  if (!carried) {
    const auto none = Measured<double>::Unknown(Missing::kAbsent, "no data in this direction");
    return {none, none};
  }
  return {FromColumn(g.sender_bits_per_second), FromColumn(g.receiver_bits_per_second)};
}

// A request/response run's columns (a bulk run leaves every figure unknown, as analysis does).
analysis::RrFigures RrFiguresOf(const store::RunSummary::Rr& r) {
  analysis::RrFigures f;
  f.transactions_per_second = FromColumn(r.transactions_per_second);
  f.latency_p50_us = FromColumn(r.p50_us);
  f.latency_p90_us = FromColumn(r.p90_us);
  f.latency_p99_us = FromColumn(r.p99_us);
  f.latency_p999_us = FromColumn(r.p999_us);
  f.latency_max_us = FromColumn(r.max_us);
  f.latency_mean_us = FromColumn(r.mean_us);
  f.connect_p50_us = FromColumn(r.connect_p50_us);
  f.connect_p99_us = FromColumn(r.connect_p99_us);
  f.lost = FromColumn(r.lost);
  f.late = FromColumn(r.late);
  f.client_process_us_per_transaction = FromColumn(r.client_process_us_per_transaction);
  f.server_process_us_per_transaction = FromColumn(r.server_process_us_per_transaction);
  f.client_host_us_per_transaction = FromColumn(r.client_host_us_per_transaction);
  f.server_host_us_per_transaction = FromColumn(r.server_host_us_per_transaction);
  return f;
}

// The columns hold analysis's figures (store/summary.cc), each direction on its own.
analysis::RunFigures FiguresOf(const store::RunSummary& s, record::Direction direction) {
  analysis::RunFigures f;
  f.client_to_server = GoodputOf(s.client_to_server, direction != record::Direction::kReverse);
  f.server_to_client = GoodputOf(s.server_to_client, direction != record::Direction::kForward);
  f.client.cpu_seconds_per_gigabyte = FromColumn(s.client_cpu_seconds_per_gb);
  f.server.cpu_seconds_per_gigabyte = FromColumn(s.server_cpu_seconds_per_gb);
  f.client.nic_interrupts_per_gigabyte = FromColumn(s.client_interrupts_per_gb);
  f.server.nic_interrupts_per_gigabyte = FromColumn(s.server_interrupts_per_gb);
  std::optional<double> retransmits;
  if (s.retransmits) retransmits = static_cast<double>(*s.retransmits);
  f.retransmits = FromColumn(retransmits);
  f.mean_rtt_us = FromColumn(s.mean_rtt_us);
  if (!s.rr.mode.empty()) f.rr = RrFiguresOf(s.rr);
  return f;
}

record::EndpointRecord EndOf(const nlohmann::json& j, const char* role) {
  record::EndpointRecord end;
  end.role = std::string_view(role) == "server" ? record::Role::kServer : record::Role::kClient;
  end.software = j.at("software").get<std::string>();
  end.host = j.at("host").get<record::HostFacts>();
  end.nic = j.at("nic").get<record::NicFacts>();
  end.congestion_used = j.at("congestion_used").get<std::string>();
  return end;
}

// The part of a record the facts hold: options and both ends' facts.
Result<record::RunRecord> RecordOfFacts(const store::RunFacts& facts) {
  try {
    record::RunRecord run;
    run.spec = facts.facts.at("spec").get<record::TestSpec>();
    run.local = EndOf(facts.facts.at("client"), "client");
    const nlohmann::json& server = facts.facts.at("server");
    if (server.is_null()) {
      run.remote = Measured<record::EndpointRecord>::Unknown(Missing::kNotReported);
    } else {
      run.remote = EndOf(server, "server");
    }
    return run;
  } catch (const std::exception& e) {
    return Fail(fmt::format("run {}: its stored facts do not read: {}", facts.id, e.what()));
  }
}

// The cpu-frequency fact needs the samples, which the stored facts do not hold: the value the
// store computed when the run was put replaces the one FactsOf could make. Runs stored before
// the value existed keep FactsOf's "unknown".
void UseStoredFrequency(const nlohmann::json& facts, std::vector<analysis::Fact>& out) {
  for (const char* role : {"client", "server"}) {
    const auto end = facts.find(role);
    if (end == facts.end() || !end->is_object()) continue;
    const auto stored = end->find(analysis::kCpuFrequencyFact);
    if (stored == end->end() || !stored->is_string()) continue;
    const std::string name = std::string(role) + ".cpu-frequency";
    for (analysis::Fact& fact : out) {
      if (fact.first == name) fact.second = stored->get<std::string>();
    }
  }
}

}  // namespace

Result<std::vector<analysis::RunInput>> LoadInputs(store::Store& store,
                                                   const std::vector<store::RunSummary>& runs) {
  auto facts = store.GetFacts(IdsOf(runs));
  if (!facts) return tl::unexpected(facts.error());
  std::unordered_map<int64_t, const store::RunFacts*> by_id;
  for (const store::RunFacts& f : *facts) by_id[f.id] = &f;
  std::vector<analysis::RunInput> out;
  out.reserve(runs.size());
  for (const store::RunSummary& s : runs) {
    analysis::RunInput input;
    input.id = s.id;
    input.direction = DirectionOf(s.direction);
    input.figures = FiguresOf(s, input.direction);
    if (const auto it = by_id.find(s.id); it != by_id.end()) {
      auto partial = RecordOfFacts(*it->second);
      if (!partial) return tl::unexpected(partial.error());
      input.facts = analysis::FactsOf(*partial);
      UseStoredFrequency(it->second->facts, input.facts);
    }
    out.push_back(std::move(input));
  }
  return out;
}

}  // namespace nicbench::cli
