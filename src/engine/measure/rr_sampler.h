// The request/response side of the interval sampler: sums the transaction counters of RR flows
// (FlowCounters::rr) between two snapshots, merges their cumulative latency histograms'
// differences (per flow, so no lock was ever taken on the data path) and reads the percentiles.
// Also the whole test's summary from the per-flow totals. Plain functions and values owned by
// one controller thread.
#pragma once

#include <optional>
#include <vector>

#include "base/latency_histogram.h"
#include "engine/datapath/data_path.h"
#include "engine/measure/interval_sampler.h"
#include "record/run_record.h"

namespace nicbench::engine {

record::LatencySummary Summarize(const LatencyHistogram& h);

class RrAccumulator {
 public:
  // Adds one flow's counts between `before` and `now` (both cumulative). Non-RR flows: nothing.
  void Add(const FlowCounters& now, const FlowCounters& before);
  // Adds one flow's totals (already since the end of omit).
  void Add(const FlowTotals& totals);
  bool any() const { return any_; }
  record::RrStats Stats(double seconds) const;
  // Adds the whole distributions (latency_buckets, connect_buckets) to `s`.
  void FillBuckets(record::RrStats& s) const;

 private:
  bool any_ = false, have_latency_ = false, have_connect_ = false, have_one_way_ = false;
  uint64_t transactions_ = 0, lost_ = 0, late_ = 0;
  LatencyHistogram latency_, connect_, up_, down_;
};

// Fills the RR fields of a flow's totals: `last` minus `base`.
void FillRrTotals(const FlowCounters& last, const FlowCounters& base, FlowTotals& totals);

// The whole test's RR stats from every flow's totals; nullopt for a bulk test.
std::optional<record::RrStats> RrTotals(const std::vector<FlowTotals>& totals, double seconds);

// The record's summary: this end's totals and, at the client, the server's count (from the
// intervals of its record, when it sent one). Counts only: the CPU time per transaction is
// analysis's (analysis::ComputeRrServiceDemand), from the CPU times and host samples the record
// holds.
std::optional<record::RrSummary> SummarizeRr(const std::vector<FlowTotals>& totals,
                                             const record::RunRecord& record);

}  // namespace nicbench::engine
