// Internal to src/report: the iperf3-style stream lines shared by the interval and summary
// renderers, and the per-end text sections.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "record/run_record.h"

namespace nicbench::report::text {

inline constexpr const char kSeparator[] = "- - - - - - - - - - - - - - - - - - - - - - - - -\n";

// "[  1]" or, in a bidirectional test, "[  1][TX-C]". id < 0 prints "[SUM]".
std::string Tag(const record::RunRecord& run, int id, bool local_sends);

// "   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec" (no newline).
// The interval, the bytes and the rate; the rate in -f's unit (`format`, TestSpec::format).
std::string Transfer(const record::RunRecord& run, double start, double end, uint64_t bytes);

// "  0.250 ms  5/12500 (0.04%)": UDP jitter and loss columns.
std::string UdpLoss(double jitter_seconds, uint64_t lost, uint64_t packets);

// "Findings, most severe first:" and each finding's title, evidence, meaning and next step, or
// "No problems found." when there are none.
std::string FindingLines(const std::vector<record::Finding>& findings);

// text_directions.cc: one value of a row of the two directions side by side, in the row's unit
// ("9.41 Gbits/sec" for "bit/s", whole counts, CPU-s/GB to about three figures).
std::string DirectionValueText(const std::string& unit, double value);

// The per-end sections of the summary.
std::string EndpointSection(const record::RunRecord& run, const record::EndpointRecord& end,
                            const char* title);
std::string NicSection(const record::NicFacts& nic);

// text_ladder.cc: the drop ladder, one row per layer (NIC, softnet backlog, qdisc, socket,
// retransmissions) and one column per end; an unknown cell says why.
std::string DropLadderTable(const record::RunRecord& run);
// text_limits.cc: what limited each TCP stream (analysis/stream_limits.h), one line per sending
// stream; "" for UDP, request/response tests and when no stream has TCP_INFO's chrono times.
std::string StreamLimitLines(const record::RunRecord& run);

// text_file.cc: "File (local client): read 1.00 GBytes /data/x (ext4), ...: the disk reads at
// 93.1 MB/s (...)" per end that used -F, with its notes; "" when neither did.
std::string FileLines(const record::RunRecord& run);
std::string FileLine(const record::FileRecord& file, const std::string& who);
// Decimal bytes per second as dd prints them: "93.1 MB/s", "5.11 GB/s".
std::string FormatByteRate(double bytes_per_second);
// Request/response tests (text_rr.cc): the interval header and line, and the summary block.
std::string RrIntervalHeader(const record::RunRecord& run);
std::string RrIntervalLine(const record::RunRecord& run, const record::IntervalRecord& interval);
std::string RrSummary(const record::RunRecord& run);
// text_latency.cc: run --under-load's section; "" for a run without probes.
std::string LatencyUnderLoad(const record::RunRecord& run);

}  // namespace nicbench::report::text
