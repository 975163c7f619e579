// "What differs" between two sets of runs: every fact that can explain a difference in the
// figures (the test's options; on each end the kernel, driver and firmware, offloads, MTU,
// rings, coalescing, IRQ mode, qdisc, the busiest core's CPU frequency and congestion control),
// with the values each set holds.
// A fact whose values differ between the sets is a difference; a fact with more than one value
// inside one set is flagged, since such a set is not one configuration. Pure; thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "record/run_record.h"

namespace nicbench::analysis {

// The facts of one run as (name, value) pairs in a fixed order: "options.streams" = "4",
// "server.offload.tcp-segmentation-offload" = "off", "client.kernel" = "6.1.0-18-amd64". A fact
// that was not measured has the value "unknown (reason)"; an end that did not report has none.
// "client.cpu-frequency" needs the samples; a run read back from the store's facts has none,
// and its caller puts in the value the store kept (kCpuFrequencyFact).
using Fact = std::pair<std::string, std::string>;
std::vector<Fact> FactsOf(const record::RunRecord& run);
// The member of each end's stored facts that holds its cpu-frequency value.
inline constexpr const char kCpuFrequencyFact[] = "cpu_frequency";

// One value of a fact and how many runs of the set hold it.
struct ValueCount {
  std::string value;
  int runs = 0;
};

struct FactDifference {
  std::string name;
  std::vector<ValueCount> a, b;           // most common first; empty when no run of the set has it
  bool between = false;                   // the sets' values differ
  bool a_mixed = false, b_mixed = false;  // more than one value inside the set
};

// The facts that differ between the sets or inside one of them, in FactsOf order.
std::vector<FactDifference> WhatDiffers(const std::vector<const record::RunRecord*>& a,
                                        const std::vector<const record::RunRecord*>& b);
// The same from each run's facts computed beforehand.
std::vector<FactDifference> WhatDiffers(const std::vector<const std::vector<Fact>*>& a,
                                        const std::vector<const std::vector<Fact>*>& b);

}  // namespace nicbench::analysis
