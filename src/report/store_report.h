// What `nicbench history` and `nicbench show` print: the table of stored runs (text, JSON, CSV)
// and a stored run re-rendered from its record (the same text `run` printed, its JSON document,
// or its intervals as CSV). docs/store.md shows each. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "record/run_record.h"
#include "store/store.h"

namespace nicbench::report {

// One line per run, in the order given (history passes newest first), under a header:
//   ID  TIME (UTC)           HOSTS     DIR  PROTO  P  GOODPUT  CPU/GB C  CPU/GB S  RETR  FINDING
//   LABELS
// GOODPUT is the receivers' count (a request/response run: its transactions/s, and PROTO says
// "tcp rr", "udp rr" or "tcp crr"); CPU/GB are CPU-seconds per gigabyte at the client and the
// server; unknown figures are "-"; an incomplete run (interrupted, not diagnosed) says
// "incomplete (interrupted)" under FINDING. No runs: a line saying so.
std::string RenderHistoryText(const std::vector<store::RunSummary>& runs);
// {"runs": [{"id", "time", "time_secs", "client_host", "server_host", "peer", "direction",
// "protocol", "streams", "duration_seconds", "incomplete", then every bulk figure of the table of
// figures by its key (analysis/figure_table.h: "sender_bits_per_second", ...,
// "client_cpu_seconds_per_gigabyte", "retransmits", "mean_rtt_us"), "top_finding": {"id",
// "severity"} | null, "labels": {...}}]}; unknown figures are null, with their reason under
// "unknown" (the record's rule). A request/response run also has "rr": {"mode", then the "rr_"
// figures without the prefix: "transactions_per_second", "latency_p50_us", ...}, a run with
// latency-under-load figures "under_load": {"loaded_p99_ms", "loaded_rpm", ...} (docs/store.md).
std::string RenderHistoryJson(const std::vector<store::RunSummary>& runs);
// The same members as columns (labels as one "k=v;k=v" column), a header row first; an
// "incomplete" column (1 or 0) after them only when a run of the list is incomplete, then
// rr_mode and the rr_* figures only when a run of the list is a request/response run, then the
// under_load_* figures only when a run of the list has them. Figure columns are the table's keys.
std::string RenderHistoryCsv(const std::vector<store::RunSummary>& runs);

// The text a run printed: the interval header, each interval's lines with both ends' samples,
// then the summary (report::RenderSummary).
std::string RenderReplay(const record::RunRecord& run);

// One row per interval per stream per end, a header row first: run_id, end (local/remote),
// role, interval_start, interval_end, omitted, stream, sender, bytes, bits_per_second,
// retransmits, rtt_us, snd_cwnd_bytes, packets, lost, out_of_order, jitter_ms.
// A request/response run instead: one row per interval per end, every flow together: run_id,
// end, role, interval_start, interval_end, omitted, transactions, transactions_per_second, lost,
// late (UDP), latency_{p50,p90,p99,p99_9,max,mean}_us, connect_{...}_us (CRR); docs/rr.md.
std::string RenderIntervalsCsv(int64_t run_id, const record::RunRecord& run);

}  // namespace nicbench::report
