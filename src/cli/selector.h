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

// The summaries of the runs a selector names, newest first. A selector that matches no run is an
// error naming the selector and the store ("label:tso=on matches no run in sqlite:/x.db").
Result<std::vector<store::RunSummary>> Resolve(store::Store& store, const Selector& selector);

// What compare needs of each run, read from the store without parsing whole records (the
// summary columns and the facts); a bidirectional run is read whole, since its summary sums
// both directions' goodput. Same order as `runs`.
Result<std::vector<analysis::RunInput>> LoadInputs(store::Store& store,
                                                   const std::vector<store::RunSummary>& runs);

// The same for runs read whole (a matrix reads its runs back by experiment).
std::vector<int64_t> IdsOf(const std::vector<store::RunSummary>& runs);

}  // namespace nicbench::cli
