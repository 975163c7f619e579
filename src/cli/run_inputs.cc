// Selector's LoadInputs: compare's per-run inputs from the store's stored figures (the table of
// figures, analysis/figure_table.h) and facts, so two sets of a thousand runs compare without
// parsing two thousand whole records.
#include <unordered_map>

#include <fmt/format.h>

#include "cli/selector.h"
#include "record/json.h"

namespace nicbench::cli {
namespace {

using record::Measured;
using record::Missing;

record::Direction DirectionOf(const std::string& name) {
  if (name == "reverse") return record::Direction::kReverse;
  if (name == "bidirectional") return record::Direction::kBidirectional;
  return record::Direction::kForward;
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
    input.figures = s.figures;  // the table of figures, as stored with the run
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
