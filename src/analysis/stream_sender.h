// The TCP figures iperf3 reports for the sender of one stream (end.streams[].sender:
// max_snd_cwnd in bytes, min, max and mean RTT), for either end's record. Pure; thread-safe.
#pragma once

#include <cstdint>

#include "record/run_record.h"

namespace nicbench::analysis {

struct SenderTcp {
  record::Measured<uint64_t> max_snd_cwnd;
  record::Measured<uint32_t> min_rtt_us, max_rtt_us, mean_rtt_us;
};

// A stream this end sent on: the record's totals (the sampler's, over every boundary; the mean
// RTT from its sum and count of samples, or an older record's mean as it was recorded). A
// stream the peer sent on: from the peer's own per-interval view (record.remote, which a
// nicbench peer sends), omitted intervals left out as on the sending end; unknown as the
// record has it when the peer sent no view or no TCP_INFO of that stream.
SenderTcp StreamSenderTcp(const record::RunRecord& run, const record::StreamTotals& stream);

}  // namespace nicbench::analysis
