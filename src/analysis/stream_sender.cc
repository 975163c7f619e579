#include "analysis/stream_sender.h"

#include <algorithm>

namespace nicbench::analysis {
namespace {

// iperf3's per-stream mean: every sample counts, the quotient truncated to whole microseconds.
uint32_t MeanRttUs(uint64_t sum_us, uint64_t samples) {
  return static_cast<uint32_t>(sum_us / samples);
}

// The sums a record of this version holds, else the mean an older one recorded.
SenderTcp AsRecorded(const record::StreamTotals& s) {
  const record::Measured<uint32_t> mean =
      s.rtt_samples > 0 ? MeanRttUs(s.rtt_sum_us, s.rtt_samples) : s.mean_rtt_us;
  return SenderTcp{s.max_snd_cwnd, s.min_rtt_us, s.max_rtt_us, mean};
}

}  // namespace

SenderTcp StreamSenderTcp(const record::RunRecord& run, const record::StreamTotals& stream) {
  const record::EndpointRecord* peer = run.remote.get();
  if (stream.sender || stream.max_snd_cwnd.known() || peer == nullptr) return AsRecorded(stream);
  uint64_t max_cwnd = 0, rtt_sum = 0, samples = 0;
  uint32_t max_rtt = 0, min_rtt = UINT32_MAX;
  for (const record::IntervalRecord& interval : peer->intervals) {
    if (interval.omitted) continue;
    for (const record::StreamInterval& i : interval.streams) {
      const record::TcpInfoSample* t = i.tcp_info.get();
      if (i.id != stream.id || !i.sender || t == nullptr) continue;
      max_cwnd = std::max<uint64_t>(max_cwnd, uint64_t{t->snd_cwnd} * t->snd_mss);
      max_rtt = std::max(max_rtt, t->rtt_us);
      min_rtt = std::min(min_rtt, t->rtt_us);
      rtt_sum += t->rtt_us;
      ++samples;
    }
  }
  if (samples == 0) return AsRecorded(stream);
  return SenderTcp{max_cwnd, min_rtt, max_rtt, MeanRttUs(rtt_sum, samples)};
}

}  // namespace nicbench::analysis
