#include "analysis/compare_sets.h"

#include <algorithm>
#include <string_view>

#include "record/json.h"

namespace nicbench::analysis {
namespace {

using record::Measured;

MetricValues Collect(const Figure& m, const std::vector<const RunInput*>& runs) {
  MetricValues out;
  for (const RunInput* run : runs) {
    const Measured<double>& v = run->figures[m];
    const std::string& caveat = run->figures.Caveat(m);
    if (!v.known()) {
      if (out.unknown++ == 0) out.why_unknown = record::UnknownReason(v.why(), v.detail());
    } else if (!caveat.empty()) {
      if (out.left_out++ == 0) out.caveat = caveat;
    } else {
      out.values.push_back(v.value());
    }
  }
  return out;
}

// An end's bulk CPU figures are shown also when no run knows them: that a path has no NIC
// interrupt lines, or that the peer does not report, is an answer too.
bool ShownWhenUnknown(const Figure& m) {
  return m.group == FigureGroup::kBulk &&
         (m.end == FigureEnd::kClient || m.end == FigureEnd::kServer);
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

bool IsRrRun(const RunInput* run) { return run->figures.Get("rr_transactions_per_second").known(); }

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

RunInput RunInputOf(const record::RunRecord& run, int64_t id) {
  return RunInput{id, ComputeFigureValues(run), FactsOf(run), run.spec.direction};
}

SetComparison CompareInputs(const std::vector<const RunInput*>& a,
                            const std::vector<const RunInput*>& b) {
  SetComparison out;
  out.runs_a = static_cast<int>(a.size());
  out.runs_b = static_cast<int>(b.size());
  out.direction = CommonDirection(a, b);
  const bool rr_only = AllRr(a, b);
  // Goodput and cost per gigabyte of a test that moves a few bytes per round trip say nothing
  // about it: sets of request/response runs only compare by their own metrics (and TCP's).
  for (const Figure& m : Figures()) {
    if (!m.compared || (rr_only && m.per_byte)) continue;
    MetricComparison c;
    c.metric = &m;
    c.a = Collect(m, a);
    c.b = Collect(m, b);
    const bool none = c.a.values.empty() && c.b.values.empty();
    if (none && c.a.left_out + c.b.left_out == 0 && !ShownWhenUnknown(m)) continue;
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
  std::string label = analysis::RoleName(role);
  if (!direction || *direction == record::Direction::kBidirectional) return label;
  return label + (DutyOf(role, *direction).sends ? " (sender)" : " (receiver)");
}

bool IsRrMetric(const Figure& metric) { return metric.group == FigureGroup::kRr; }

std::string MetricName(const Figure& metric, std::optional<record::Direction> direction) {
  if (metric.end != FigureEnd::kClient && metric.end != FigureEnd::kServer) return metric.label;
  const Role role = metric.end == FigureEnd::kClient ? Role::kClient : Role::kServer;
  // Both ends of a transaction send and receive: sender/receiver would mislead.
  if (IsRrMetric(metric)) return std::string(analysis::RoleName(role)) + " " + metric.label;
  return EndLabel(role, direction) + " " + metric.label;
}

}  // namespace nicbench::analysis
