// A comparison of two sets of runs, as `nicbench compare` and `nicbench matrix` show it: for
// each metric of analysis/figures.h both sets' summaries, the U test and its verdict; then what
// differs. Built once here, rendered by report. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/differs.h"
#include "analysis/figure_table.h"
#include "analysis/figures.h"
#include "analysis/statistics.h"
#include "record/run_record.h"

namespace nicbench::analysis {

// The metrics compare shows are the compared rows of the figure table (figure_table.h), in its
// order: the bulk ones, then the request/response ones (keys "rr_...") and the latency-under-load
// ones (keys "under_load_..."), each unknown for a run of another kind, so they show only when a
// set holds runs of their kind.
bool IsRrMetric(const Figure& metric);

// A metric's values over one set: the known ones that are tested, how many runs had it unknown
// and why, and how many known values were left out of the test for their caveat
// (Figure::caveat: other traffic beside the test) and why.
struct MetricValues {
  std::vector<double> values;
  int unknown = 0;
  std::string why_unknown;  // the first unknown run's reason ("not supported: ...")
  int left_out = 0;
  std::string caveat;  // the first left-out run's caveat
};

struct MetricComparison {
  const Figure* metric = nullptr;
  MetricValues a, b;
  Comparison comparison;
};

struct SetComparison {
  int runs_a = 0, runs_b = 0;
  // The direction of every run of both sets when they share one, so "server" can be read as
  // "receiver"; unset when the sets mix directions.
  std::optional<record::Direction> direction;
  // Compared figures known in at least one run of either set, in Figures() order, and each end's
  // bulk CPU figures also when unknown in every run (they say why); when every run of both sets
  // is a request/response run, without the figures per byte moved.
  std::vector<MetricComparison> metrics;
  std::vector<FactDifference> differs;
};

// What compare needs of one run: its figures, its facts and its direction. Built from a whole
// record (RunInputOf) or, for thousands of stored runs, from the store's summary columns and
// facts without parsing whole records.
struct RunInput {
  int64_t id = 0;  // the store's id; 0 when not stored
  FigureValues figures;
  std::vector<Fact> facts;
  record::Direction direction = record::Direction::kForward;
};
RunInput RunInputOf(const record::RunRecord& run, int64_t id = 0);

SetComparison CompareSets(const std::vector<const record::RunRecord*>& a,
                          const std::vector<const record::RunRecord*>& b);
SetComparison CompareInputs(const std::vector<const RunInput*>& a,
                            const std::vector<const RunInput*>& b);

// "server (receiver)" for a metric name's end when the direction says which end receives.
std::string EndLabel(Role role, std::optional<record::Direction> direction);
// "server (receiver) CPU per GB", "goodput client->server (receiver)".
std::string MetricName(const Figure& metric, std::optional<record::Direction> direction);

}  // namespace nicbench::analysis
