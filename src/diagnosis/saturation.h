// Internal to diagnosis: analysis's CPU figures (analysis/cpu_figures.h) as the CPU, IRQ and
// measurement rules judge and word them: whether an end's core counts as saturated under the
// thresholds, and what the core did, in words. Pure.
#pragma once

#include <string>

#include "analysis/cpu_figures.h"
#include "diagnosis/diagnose.h"
#include "diagnosis/run_view.h"

namespace nicbench::diagnosis {

using analysis::CoreSaturation;

// The saturated core of an end, by the thresholds' core_busy_percent and
// saturated_interval_fraction.
CoreSaturation CoreSaturationAt(const RunView& view, const End& end, const Thresholds& t);

// True when the end is CPU-bound: a core saturated in more than saturated_interval_fraction of
// the samples that carry per-CPU shares (most of them, not one interval's noise).
bool Saturated(const CoreSaturation& cpu, const Thresholds& t);

// The kind of work that filled the core: "softirq (NET_RX/NET_TX packet processing)", ...
std::string DominantKind(const CoreSaturation& cpu);

// "cpu1 97% busy: user 10%, system 30%, irq 2%, softirq 55%, steal 0%"
std::string CoreText(const CoreSaturation& cpu);

}  // namespace nicbench::diagnosis
