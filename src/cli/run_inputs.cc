// Selector's LoadInputs: compare's per-run inputs from the store's summary columns and facts, so
// two sets of a thousand runs compare without parsing two thousand whole records.
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

// A unidirectional run's goodput is its one direction's; the other direction carried nothing.
analysis::RunFigures FiguresOf(const store::RunSummary& s, record::Direction direction) {
  analysis::RunFigures f;
  analysis::DirectionFigures moved{FromColumn(s.sender_bits_per_second),
                                   FromColumn(s.receiver_bits_per_second)};
  analysis::DirectionFigures none{
      Measured<double>::Unknown(Missing::kAbsent, "no data in this direction"),
      Measured<double>::Unknown(Missing::kAbsent, "no data in this direction")};
  const bool forward = direction == record::Direction::kForward;
  f.client_to_server = forward ? moved : none;
  f.server_to_client = forward ? none : moved;
  f.client.cpu_seconds_per_gigabyte = FromColumn(s.client_cpu_seconds_per_gb);
  f.server.cpu_seconds_per_gigabyte = FromColumn(s.server_cpu_seconds_per_gb);
  f.client.nic_interrupts_per_gigabyte = FromColumn(s.client_interrupts_per_gb);
  f.server.nic_interrupts_per_gigabyte = FromColumn(s.server_interrupts_per_gb);
  std::optional<double> retransmits;
  if (s.retransmits) retransmits = static_cast<double>(*s.retransmits);
  f.retransmits = FromColumn(retransmits);
  f.mean_rtt_us = FromColumn(s.mean_rtt_us);
  return f;
}

record::EndpointRecord EndOf(const nlohmann::json& j, const char* role) {
  record::EndpointRecord end;
  end.role = role;
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

}  // namespace

Result<std::vector<analysis::RunInput>> LoadInputs(store::Store& store,
                                                   const std::vector<store::RunSummary>& runs) {
  auto facts = store.GetFacts(IdsOf(runs));
  if (!facts) return tl::unexpected(facts.error());
  std::unordered_map<int64_t, const store::RunFacts*> by_id;
  for (const store::RunFacts& f : *facts) by_id[f.id] = &f;
  std::vector<int64_t> bidirectional;
  std::vector<analysis::RunInput> out;
  out.reserve(runs.size());
  for (const store::RunSummary& s : runs) {
    analysis::RunInput input;
    input.id = s.id;
    input.direction = DirectionOf(s.direction);
    input.figures = FiguresOf(s, input.direction);
    if (input.direction == record::Direction::kBidirectional) bidirectional.push_back(s.id);
    if (const auto it = by_id.find(s.id); it != by_id.end()) {
      auto partial = RecordOfFacts(*it->second);
      if (!partial) return tl::unexpected(partial.error());
      input.facts = analysis::FactsOf(*partial);
    }
    out.push_back(std::move(input));
  }
  if (bidirectional.empty()) return out;
  // Both directions' goodput, split, need the whole record.
  auto whole = store.GetMany(bidirectional);
  if (!whole) return tl::unexpected(whole.error());
  std::unordered_map<int64_t, const store::StoredRun*> whole_by_id;
  for (const store::StoredRun& r : *whole) whole_by_id[r.summary.id] = &r;
  for (analysis::RunInput& input : out) {
    const auto it = whole_by_id.find(input.id);
    if (it != whole_by_id.end()) input.figures = analysis::ComputeFigures(it->second->record);
  }
  return out;
}

}  // namespace nicbench::cli
