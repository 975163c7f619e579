// Selectors: how `compare` (and `matrix`) name a set of stored runs. A run id ("42"), runs
// carrying labels ("label:tso=on", "label:tso=on,direction=forward": every pair must match), the
// newest N runs ("last:5"), an id range ("id:12..20", inclusive) or an experiment's runs
// ("experiment:3"). Parsing is pure; Resolve asks the store.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/compare_sets.h"
#include "base/result.h"
#include "store/store.h"

namespace nicbench::cli {

struct Selector {
  std::string text;  // as the user wrote it, for messages and output
  store::RunQuery query;
  bool single = false;  // a bare run id: that run must exist
};

// A selector from its text; an error says what is wrong and lists the forms.
Result<Selector> ParseSelector(std::string_view text);

// The runs a selector names and the incomplete runs (interrupted, store::RunSummary::incomplete)
// it would have picked but left out, each newest first.
struct ResolvedRuns {
  std::vector<store::RunSummary> runs;
  std::vector<store::RunSummary> left_out;  // empty with include_incomplete
};
// The runs a selector names; empty when none matches. Incomplete runs are left out unless
// include_incomplete (then "last:N" is the newest N complete runs, as `history --last N` shows
// them). An error only when the store fails.
Result<ResolvedRuns> Resolve(store::Store& store, const Selector& selector,
                             bool include_incomplete = false);
// What to say when a selector matched nothing: "no run with id 999 in sqlite:/x.db",
// "selector 'label:tso=on' matches no run in sqlite:/x.db", or, when it matched only
// incomplete runs, that they were left out and that --incomplete takes them.
std::string NoRunsMessage(const store::Store& store, const Selector& selector,
                          const std::vector<store::RunSummary>& left_out = {});
// What to say when a selector's set leaves incomplete runs out: "selector 'label:tso=on' leaves
// out incomplete run 12 (interrupted after 4.20 s); --incomplete includes it".
std::string LeftOutMessage(const Selector& selector,
                           const std::vector<store::RunSummary>& left_out);

// What compare needs of each run, read from the store without parsing whole records (the
// summary columns and the facts); a bidirectional run is read whole, since its summary sums
// both directions' goodput. Same order as `runs`.
Result<std::vector<analysis::RunInput>> LoadInputs(store::Store& store,
                                                   const std::vector<store::RunSummary>& runs);

// The ids of the runs, same order.
std::vector<int64_t> IdsOf(const std::vector<store::RunSummary>& runs);

}  // namespace nicbench::cli
