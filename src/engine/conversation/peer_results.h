// The results exchange's documents from this end's totals, and the per-stream totals
// combined with the peer's results. Used by both conversations. Thread safety: plain functions.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "engine/measure/interval_sampler.h"
#include "protocol/results.h"
#include "record/run_record.h"

namespace nicbench::engine {

// Our EXCHANGE_RESULTS document (without the extension).
protocol::PeerResults MakeLocalResults(const std::vector<FlowTotals>& totals,
                                       const record::CpuUtilization& cpu,
                                       record::Transport transport,
                                       const std::string& congestion_used);

// Per-stream totals as iperf3 prints them: our counts for our side of each stream, the peer's
// counts for the other side (bytes_received of our sender streams is what the peer received).
// A peer stream id we do not have is an error (iperf3's IESTREAMID).
Result<std::vector<record::StreamTotals>> CombineTotals(const std::vector<FlowTotals>& ours,
                                                        const protocol::PeerResults& peer,
                                                        record::Transport transport);

// The figures of the peer's results header that any iperf3 peer sends: its CPU use, its
// congestion control and, only when `asked_for_output` (--get-server-output), the server's text
// or JSON output: a server that sends it unasked does not get it printed.
record::PeerReport MakePeerReport(const protocol::PeerResults& theirs, bool asked_for_output);

}  // namespace nicbench::engine
