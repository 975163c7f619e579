// Merging two adjacent intervals into one covering both: how a long test keeps its record
// bounded (the engine halves its intervals and host samples when they reach a limit, so a
// 24-hour test at 1 s intervals keeps at most the limit, each covering a longer span). Counts
// add up, shares are weighted by duration, snapshots (TCP_INFO, allowed CPUs) are the later
// one's. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <vector>

#include "record/run_record.h"

namespace nicbench::record {

// REQUIRES: a ends where b starts (a.end == b.start).
IntervalRecord MergeIntervals(const IntervalRecord& a, const IntervalRecord& b);
HostInterval MergeSamples(const HostInterval& a, const HostInterval& b);

// Merges the entries of `items` from index `first` on in adjacent pairs ((first, first+1),
// (first+2, first+3), ...; an odd last one stays), halving that part. Entries before `first`
// (an omitted warm-up) are kept as they are.
template <typename T, typename Merge>
void HalveFrom(std::vector<T>& items, size_t first, Merge merge) {
  if (items.size() <= first + 1) return;
  std::vector<T> out(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(first));
  for (size_t i = first; i < items.size(); i += 2) {
    out.push_back(i + 1 < items.size() ? merge(items[i], items[i + 1]) : std::move(items[i]));
  }
  items = std::move(out);
}

}  // namespace nicbench::record
