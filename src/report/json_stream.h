// --json-stream: newline-delimited JSON events as iperf3 3.13+ writes them with --json-stream,
// one object per line: {"event":"start","data":<iperf3's start>}, then one
// {"event":"interval","data":{"streams":[...],"sum":{...}}} per interval, then
// {"event":"end","data":<iperf3's end>} (or {"event":"error","data":"message"}). What iperf3 lacks
// rides in "nicbench" members of the data: each interval's host sample of both ends, and at the
// end both ends' records and the findings. docs/report.md. Pure; thread-safe.
#pragma once

#include <string>

#include "record/run_record.h"

namespace nicbench::report {

// Each returns one line, '\n' included. `local` and `remote` may be null (not sampled, or the
// server's sample had not come yet).
std::string StreamStartEvent(const record::RunRecord& run);
std::string StreamIntervalEvent(const record::RunRecord& run,
                                const record::IntervalRecord& interval,
                                const record::HostInterval* local,
                                const record::HostInterval* remote);
// A server's sample that came after its interval's event: {"event":"nicbench_sample", ...}, an
// event name iperf3 consumers skip.
std::string StreamLateSampleEvent(const record::HostInterval& remote);
std::string StreamEndEvent(const record::RunRecord& run);
std::string StreamErrorEvent(const std::string& message);

}  // namespace nicbench::report
