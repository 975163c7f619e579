// One lifecycle of a test's RunRecord for both conversations (client.cc, server_session.cc):
// begin the record, add each connection, end the data, finish the record with the peer's
// results. What differs between the ends is what they pass in, not the steps.
//
// Thread safety: plain functions on records owned by the caller's thread.
#pragma once

#include <string>

#include "base/result.h"
#include "engine/measure/measure_loop.h"
#include "protocol/results.h"
#include "record/run_record.h"

namespace nicbench::engine {

// Begins this end's record at the test's start: the software version, the wall-clock time (the
// JSON's start.timestamp: seconds and RFC 3339), this end's role, and the peer's endpoint
// unknown for `remote_unknown_why` until the results exchange says otherwise.
void BeginRecord(record::RunRecord& record, record::Role role,
                 const std::string& remote_unknown_why);

// One connection of the test (the control connection first, then the streams in order, as
// iperf3's start.connected lists them): its local and remote address and port.
void AddConnection(record::RunRecord& record, int fd);

// Ends this end's own part once its DataPath has stopped and joined: its intervals, its -F
// file, its host samples and facts (HostObserver::Finish), the request/response summary from
// its raw counts. CPU and congestion control are taken at the results exchange, which sends
// them.
void EndData(EndRun& run);

// Finishes the record with the peer's results: each stream's totals from both ends, the
// peer's CPU and congestion control, and (`asked_for_output`) the server's output. A peer
// stream id we do not have is an error.
Status FinishRecord(EndRun& run, const protocol::PeerResults& theirs, bool asked_for_output);

}  // namespace nicbench::engine
