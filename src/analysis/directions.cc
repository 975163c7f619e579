#include "analysis/directions.h"

#include <utility>

#include "analysis/cost.h"
#include "analysis/drop_ladder.h"
#include "analysis/figures.h"
#include "record/json.h"

namespace nicbench::analysis {
namespace {

using record::Measured;

DirectionValue ValueOf(const Measured<double>& m) {
  if (m.known()) return {m.value(), {}};
  return {std::nullopt, record::UnknownReason(m.why(), m.detail())};
}

// Both records' figures, computed once per record for all the rows.
struct Pair {
  const record::RunRecord& forward;
  const record::RunRecord& reverse;
  RunFigures forward_figures = ComputeFigures(forward);
  RunFigures reverse_figures = ComputeFigures(reverse);
};

void AddRow(std::vector<DirectionRow>& rows, std::string id, std::string figure, std::string unit,
            DirectionValue forward, DirectionValue reverse, bool part = false) {
  rows.push_back({std::move(id), std::move(figure), std::move(unit), part, std::move(forward),
                  std::move(reverse)});
}

// One figure of an end's EndCost, in both records.
void AddCostRows(const Pair& p, Role role, std::vector<DirectionRow>& rows) {
  const EndCost& fwd = role == Role::kClient ? p.forward_figures.client : p.forward_figures.server;
  const EndCost& rev = role == Role::kClient ? p.reverse_figures.client : p.reverse_figures.server;
  const std::string who = analysis::RoleName(role);
  struct Part {
    const char* id;
    const char* figure;
    const char* unit;
    Measured<double> EndCost::*member;
    bool part;
  };
  static constexpr Part kParts[] = {
      {"cpu_seconds_per_gigabyte", "transfer CPU", "CPU-s/GB", &EndCost::cpu_seconds_per_gigabyte,
       false},
      {"process_user_seconds_per_gigabyte", "nicbench user", "CPU-s/GB",
       &EndCost::process_user_seconds_per_gigabyte, true},
      {"process_system_seconds_per_gigabyte", "nicbench system", "CPU-s/GB",
       &EndCost::process_system_seconds_per_gigabyte, true},
      {"softirq_seconds_per_gigabyte", "softirq (flow cores)", "CPU-s/GB",
       &EndCost::softirq_seconds_per_gigabyte, true},
      {"irq_seconds_per_gigabyte", "irq (flow cores)", "CPU-s/GB",
       &EndCost::irq_seconds_per_gigabyte, true},
      {"host_cpu_seconds_per_gigabyte", "host busy", "CPU-s/GB",
       &EndCost::host_cpu_seconds_per_gigabyte, false},
      {"nic_interrupts_per_gigabyte", "NIC interrupts", "interrupts/GB",
       &EndCost::nic_interrupts_per_gigabyte, false},
  };
  for (const Part& part : kParts) {
    AddRow(rows, who + "." + part.id, who + ": " + part.figure, part.unit,
           ValueOf(fwd.*part.member), ValueOf(rev.*part.member), part.part);
  }
}

// The rung of `layer` at the end in `role`, or why there is none.
DirectionValue RungValue(const record::RunRecord& run, Role role, Layer layer) {
  const record::EndpointRecord* end = EndIn(run, role);
  if (end == nullptr) return {std::nullopt, "not reported: the peer does not report"};
  for (const Rung& rung : DropLadderOf(run, *end)) {
    if (rung.layer != layer) continue;
    if (rung.dropped) return {static_cast<double>(*rung.dropped), {}};
    return {std::nullopt, rung.why};
  }
  return {std::nullopt, "not measured"};
}

void AddDropRows(const Pair& p, Role role, std::vector<DirectionRow>& rows) {
  struct Step {
    Layer layer;
    const char* id;
    const char* figure;
  };
  static constexpr Step kSteps[] = {{Layer::kNic, "drops.nic", "drops at the NIC"},
                                    {Layer::kSoftnet, "drops.softnet", "drops in softnet backlog"},
                                    {Layer::kSocket, "drops.socket", "drops at the socket"}};
  const std::string who = analysis::RoleName(role);
  for (const Step& step : kSteps) {
    AddRow(rows, who + "." + step.id, who + ": " + step.figure, "packets",
           RungValue(p.forward, role, step.layer), RungValue(p.reverse, role, step.layer));
  }
}

}  // namespace

std::vector<DirectionRow> CompareDirections(const record::RunRecord& forward,
                                            const record::RunRecord& reverse) {
  const Pair p{forward, reverse};
  std::vector<DirectionRow> rows;
  // Each direction's own goodput: client to server in the forward test, server to client in the
  // reverse one.
  AddRow(rows, "goodput", "goodput (receiver's count)", "bit/s",
         ValueOf(p.forward_figures.client_to_server.receiver_bits_per_second),
         ValueOf(p.reverse_figures.server_to_client.receiver_bits_per_second));
  AddCostRows(p, Role::kClient, rows);
  AddCostRows(p, Role::kServer, rows);
  AddRow(rows, "retransmits", "TCP retransmits", "segments", ValueOf(p.forward_figures.retransmits),
         ValueOf(p.reverse_figures.retransmits));
  AddRow(rows, "mean_rtt_us", "mean RTT (senders' smoothed)", "us",
         ValueOf(p.forward_figures.mean_rtt_us), ValueOf(p.reverse_figures.mean_rtt_us));
  AddDropRows(p, Role::kClient, rows);
  AddDropRows(p, Role::kServer, rows);
  return rows;
}

}  // namespace nicbench::analysis
