#include "engine/measure/interval_sampler.h"

#include "engine/measure/rr_sampler.h"
#include "record/merge.h"

#include <algorithm>

namespace nicbench::engine {
namespace {

// Boundaries closer than this to a scheduled one count as that one (timer wake-up slack).
constexpr double kBoundarySlackSeconds = 0.002;

uint64_t Between(uint64_t from, uint64_t to, double share) {
  if (to <= from) return to;
  return from + static_cast<uint64_t>(static_cast<double>(to - from) * share + 0.5);
}

// A flow's counters a `share` (0..1) of the way from `from` to `to`.
FlowCounters Interpolate(const FlowCounters& from, const FlowCounters& to, double share) {
  FlowCounters c = to;
  c.bytes = Between(from.bytes, to.bytes, share);
  c.blocks = Between(from.blocks, to.blocks, share);
  c.packets = Between(from.packets, to.packets, share);
  c.lost = Between(from.lost, to.lost, share);
  c.out_of_order = Between(from.out_of_order, to.out_of_order, share);
  return c;
}

}  // namespace

std::optional<std::chrono::milliseconds> IntervalSchedule::NextAfter(
    std::chrono::milliseconds elapsed) const {
  using std::chrono::milliseconds;
  if (elapsed < omit_) {
    if (interval_.count() > 0) {
      milliseconds next = (elapsed / interval_ + 1) * interval_;
      if (next < omit_) return next;
    }
    return omit_;
  }
  if (interval_.count() == 0) return std::nullopt;
  milliseconds since_omit = elapsed - omit_;
  return omit_ + (since_omit / interval_ + 1) * interval_;
}

IntervalSampler::IntervalSampler(MonoTime start, std::chrono::milliseconds omit,
                                 record::Transport transport)
    : start_(start), omit_(omit), transport_(transport), omit_done_(omit.count() == 0) {}

record::StreamInterval IntervalSampler::MakeStream(FlowState& state, const FlowCounters& now,
                                                   const TcpInfoByFlow& tcp_info, bool omitted) {
  record::StreamInterval s;
  s.id = now.id;
  s.sender = now.sender;
  s.omitted = omitted;
  s.bytes = now.bytes - state.last.bytes;
  if (transport_ == record::Transport::kUdp) {
    s.packets = now.packets - std::min(now.packets, state.last.packets);
    s.lost = now.lost - std::min(now.lost, state.last.lost);
    s.out_of_order = now.out_of_order - std::min(now.out_of_order, state.last.out_of_order);
    s.jitter_seconds = now.jitter_seconds;
  }
  auto info = tcp_info.find(now.id);
  if (info != tcp_info.end()) {
    s.tcp_info = info->second;
    if (const record::TcpInfoSample* sample = info->second.get()) {
      if (!state.have_retrans) {
        state.have_retrans = true;
        state.last_retrans = state.base_retrans = 0;
      }
      s.retransmits = sample->total_retrans - std::min(sample->total_retrans, state.last_retrans);
      state.last_retrans = sample->total_retrans;
      if (!omitted && now.sender) {
        FlowTotals& t = state.totals;
        // iperf3 reports the window in bytes; TCP_INFO counts segments of snd_mss.
        t.max_snd_cwnd = std::max<uint64_t>(t.max_snd_cwnd.value_or(0),
                                            uint64_t{sample->snd_cwnd} * sample->snd_mss);
        t.max_rtt_us = std::max(t.max_rtt_us.value_or(0), sample->rtt_us);
        t.min_rtt_us = std::min(t.min_rtt_us.value_or(UINT32_MAX), sample->rtt_us);
        state.rtt_sum_us += sample->rtt_us;
        ++state.rtt_samples;
      }
    }
  }
  state.last = now;
  return s;
}

void IntervalSampler::EndOmit(const std::vector<FlowCounters>& counters) {
  for (const FlowCounters& c : counters) {
    FlowState& state = flows_[c.id];
    state.base = c;
    state.base_retrans = state.last_retrans;
  }
  omit_done_ = true;
  omit_end_ = last_boundary_;
}

std::vector<FlowCounters> IntervalSampler::CountersAt(double at, double now,
                                                      const std::vector<FlowCounters>& counters) {
  const double span = now - last_snapshot_;
  const double share = span <= 0 ? 1.0 : std::clamp((at - last_snapshot_) / span, 0.0, 1.0);
  last_snapshot_ = now;
  std::vector<FlowCounters> out;
  out.reserve(counters.size());
  for (const FlowCounters& c : counters) {
    FlowCounters& snapshot = snapshots_[c.id];
    out.push_back(share >= 1.0 ? c : Interpolate(snapshot, c, share));
    snapshot = c;
  }
  return out;
}

const record::IntervalRecord* IntervalSampler::CloseAt(MonoTime at, MonoTime now,
                                                       const std::vector<FlowCounters>& read,
                                                       const TcpInfoByFlow& tcp_info, bool keep) {
  const bool has_rr =
      std::any_of(read.begin(), read.end(), [](const FlowCounters& c) { return c.rr; });
  const double t = Seconds(has_rr ? now : std::min(at, now));
  const std::vector<FlowCounters> counters = CountersAt(t, Seconds(now), read);
  const bool omitted = !omit_done_;
  record::IntervalRecord interval;
  interval.omitted = omitted;
  interval.start = last_boundary_ - omit_end_;
  interval.end = t - omit_end_;
  RrAccumulator rr;
  for (const FlowCounters& c : counters) {
    auto [it, inserted] = flows_.try_emplace(c.id);
    if (inserted) {
      it->second.totals.id = c.id;
      it->second.totals.sender = c.sender;
    }
    rr.Add(c, it->second.last);
    record::StreamInterval s = MakeStream(it->second, c, tcp_info, omitted);
    s.transactions = c.transactions - std::min(c.transactions, it->second.last_transactions);
    it->second.last_transactions = c.transactions;
    s.start = interval.start;
    s.end = interval.end;
    interval.streams.push_back(std::move(s));
  }
  if (rr.any()) {
    interval.rr = rr.Stats(interval.end - interval.start);
    if (interval_buckets_) rr.FillBuckets(*interval.rr);
  }
  last_boundary_ = t;
  const double omit_seconds = std::chrono::duration<double>(omit_).count();
  if (!omit_done_ && t + kBoundarySlackSeconds >= omit_seconds) EndOmit(counters);
  if (!keep) return nullptr;
  if (keep_limit_ > 0 && intervals_.size() >= keep_limit_) {
    record::HalveFrom(intervals_, omitted_kept_, record::MergeIntervals);
  }
  if (interval.omitted) ++omitted_kept_;
  intervals_.push_back(std::move(interval));
  return &intervals_.back();
}

double IntervalSampler::MeasuredSeconds() const {
  return omit_done_ ? last_boundary_ - omit_end_ : 0.0;
}

std::vector<FlowTotals> IntervalSampler::Totals() const {
  std::vector<FlowTotals> out;
  const double seconds = MeasuredSeconds();
  for (const auto& [id, state] : flows_) {
    FlowTotals t = state.totals;
    t.seconds = seconds;
    const FlowCounters& base = omit_done_ ? state.base : state.last;
    t.bytes = state.last.bytes - base.bytes;
    if (transport_ == record::Transport::kUdp) {
      t.packets = state.last.packets - std::min(state.last.packets, base.packets);
      t.lost = state.last.lost - std::min(state.last.lost, base.lost);
      t.out_of_order =
          state.last.out_of_order - std::min(state.last.out_of_order, base.out_of_order);
      t.jitter_seconds = state.last.jitter_seconds;
    }
    if (state.have_retrans && state.totals.sender) {
      t.retransmits = state.last_retrans - std::min(state.last_retrans, state.base_retrans);
    }
    t.rtt_sum_us = state.rtt_sum_us;
    t.rtt_samples = state.rtt_samples;
    FillRrTotals(state.last, base, t);
    out.push_back(t);
  }
  return out;
}

}  // namespace nicbench::engine
