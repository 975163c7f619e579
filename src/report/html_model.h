// The data of the HTML report: a RunRecord turned into the figures the page draws, one JSON
// object the page reads from a <script type="application/json"> element. Every chart is
// {id, title, note, unit, stacked, x: [labels], series: [{label, data, stack, dash, fill}]}; the
// page draws it with Chart.js and writes the same numbers as a table under it, so what the
// chart shows is decided here (and tested here), not in the page's script. Internal to
// src/report. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "record/run_record.h"

namespace nicbench::report {

// Cores drawn per end at most (the busiest; the rest are named in the section's note).
inline constexpr size_t kHtmlMaxCores = 16;
// Interrupt lines drawn per end at most (the busiest over the test).
inline constexpr size_t kHtmlMaxIrqLines = 8;

// {"title", "summary": [[name, value]...], "findings": [...], "sections": [{id, title, note,
// charts: [...]}], "facts": {"ends": [name, name], "rows": [[fact, a, b, differs]...]},
// "drop_ladder": {"ends": [name, name], "rows": [[layer, a, b]...]} (bulk tests),
// "stream_limits": [[id, sender, limit, detail]...], "figures": FigureRows}.
nlohmann::ordered_json BuildHtmlModel(const record::RunRecord& run);

// Every figure of the table of figures (analysis/figure_table.h) the store keeps of this run,
// in the table's order, the request/response and under-load groups only for their runs:
// [name, value or "unknown (why)", unit, key].
nlohmann::ordered_json FigureRows(const record::RunRecord& run);

// One throughput chart per direction (client -> server, server -> client): each end's sum in
// Mbit/s per interval, the per-stream stack of the receiving end when there are several streams.
nlohmann::ordered_json ThroughputCharts(const record::RunRecord& run);

// Both ends' host and NIC facts flattened to one row per fact: [name, local, remote, differs].
// differs is never set on counters kept since the interface came up (nic.counters.*,
// nic.driver_stats*), which differ between any two hosts.
nlohmann::ordered_json FactRows(const record::RunRecord& run);

// The drop ladder (analysis/drop_ladder.h): one row per layer, [layer, local, remote].
nlohmann::ordered_json DropLadderRows(const record::RunRecord& run);
// What limited each TCP stream (analysis/stream_limits.h): [id, sender, limit, detail].
nlohmann::ordered_json StreamLimitRows(const record::RunRecord& run);

}  // namespace nicbench::report
