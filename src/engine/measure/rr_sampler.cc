#include "engine/measure/rr_sampler.h"

#include <algorithm>

namespace nicbench::engine {
namespace {

constexpr double kUsPerNs = 1e-3;

uint64_t Delta(uint64_t now, uint64_t before) { return now - std::min(now, before); }

}  // namespace

record::LatencySummary Summarize(const LatencyHistogram& h) {
  record::LatencySummary s;
  s.count = h.count();
  if (s.count == 0) return s;
  s.mean_us = h.MeanNs() * kUsPerNs;
  s.min_us = static_cast<double>(h.min_ns()) * kUsPerNs;
  s.p50_us = h.ValueAtQuantile(0.50) * kUsPerNs;
  s.p90_us = h.ValueAtQuantile(0.90) * kUsPerNs;
  s.p99_us = h.ValueAtQuantile(0.99) * kUsPerNs;
  s.p999_us = h.ValueAtQuantile(0.999) * kUsPerNs;
  s.max_us = static_cast<double>(h.max_ns()) * kUsPerNs;
  return s;
}

std::vector<record::LatencyBucket> Buckets(const LatencyHistogram& h) {
  std::vector<record::LatencyBucket> out;
  for (size_t b = 0; b < LatencyHistogram::kBuckets; ++b) {
    if (h.CountAt(b) == 0) continue;
    const double mid = (static_cast<double>(LatencyHistogram::BucketLow(b)) +
                        static_cast<double>(LatencyHistogram::BucketHigh(b))) /
                       2;
    out.push_back({mid * kUsPerNs, h.CountAt(b)});
  }
  return out;
}

void RrAccumulator::Add(const FlowCounters& now, const FlowCounters& before) {
  if (!now.rr) return;
  any_ = true;
  transactions_ += Delta(now.transactions, before.transactions);
  lost_ += Delta(now.rr_lost, before.rr_lost);
  late_ += Delta(now.rr_late, before.rr_late);
  const LatencyHistogram empty;
  if (now.latency) {
    latency_.Add(now.latency->Since(before.latency ? *before.latency : empty));
    have_latency_ = true;
  }
  if (now.connect_latency) {
    connect_.Add(
        now.connect_latency->Since(before.connect_latency ? *before.connect_latency : empty));
    have_connect_ = true;
  }
  if (now.up_latency && now.down_latency) {
    up_.Add(now.up_latency->Since(before.up_latency ? *before.up_latency : empty));
    down_.Add(now.down_latency->Since(before.down_latency ? *before.down_latency : empty));
    have_one_way_ = true;
  }
}

void RrAccumulator::Add(const FlowTotals& t) {
  if (!t.rr) return;
  any_ = true;
  transactions_ += t.transactions;
  lost_ += t.rr_lost;
  late_ += t.rr_late;
  if (t.latency) {
    latency_.Add(*t.latency);
    have_latency_ = true;
  }
  if (t.connect_latency) {
    connect_.Add(*t.connect_latency);
    have_connect_ = true;
  }
  if (t.up_latency && t.down_latency) {
    up_.Add(*t.up_latency);
    down_.Add(*t.down_latency);
    have_one_way_ = true;
  }
}

record::RrStats RrAccumulator::Stats(double seconds) const {
  record::RrStats s;
  s.transactions = transactions_;
  s.seconds = seconds;
  s.lost = lost_;
  s.late = late_;
  if (have_latency_) s.latency = Summarize(latency_);
  if (have_connect_) s.connect = Summarize(connect_);
  if (have_one_way_) s.up = Summarize(up_), s.down = Summarize(down_);
  return s;
}

void RrAccumulator::FillBuckets(record::RrStats& s) const {
  if (have_latency_) s.latency_buckets = Buckets(latency_);
  if (have_connect_) s.connect_buckets = Buckets(connect_);
  if (have_one_way_) s.up_buckets = Buckets(up_), s.down_buckets = Buckets(down_);
}

void FillRrTotals(const FlowCounters& last, const FlowCounters& base, FlowTotals& t) {
  if (!last.rr) return;
  t.rr = true;
  t.transactions = Delta(last.transactions, base.transactions);
  t.rr_lost = Delta(last.rr_lost, base.rr_lost);
  t.rr_late = Delta(last.rr_late, base.rr_late);
  const LatencyHistogram empty;
  if (last.latency) {
    t.latency = std::make_shared<const LatencyHistogram>(
        last.latency->Since(base.latency ? *base.latency : empty));
  }
  if (last.connect_latency) {
    t.connect_latency = std::make_shared<const LatencyHistogram>(
        last.connect_latency->Since(base.connect_latency ? *base.connect_latency : empty));
  }
  if (last.up_latency && last.down_latency) {
    t.up_latency = std::make_shared<const LatencyHistogram>(
        last.up_latency->Since(base.up_latency ? *base.up_latency : empty));
    t.down_latency = std::make_shared<const LatencyHistogram>(
        last.down_latency->Since(base.down_latency ? *base.down_latency : empty));
  }
}

std::optional<record::RrStats> RrTotals(const std::vector<FlowTotals>& totals, double seconds) {
  RrAccumulator acc;
  for (const FlowTotals& t : totals) acc.Add(t);
  if (!acc.any()) return std::nullopt;
  return acc.Stats(seconds);
}

std::optional<record::RrSummary> SummarizeRr(const std::vector<FlowTotals>& totals,
                                             const record::RunRecord& record) {
  RrAccumulator acc;
  for (const FlowTotals& t : totals) acc.Add(t);
  if (!acc.any()) return std::nullopt;
  std::optional<record::RrStats> local = acc.Stats(record.test_seconds);
  // A paced test is a probe (--rr-rate): a few thousand values at most, kept whole.
  if (record.spec.rr.rate_per_second != 0) acc.FillBuckets(*local);
  record::RrSummary s;
  s.local = *local;
  if (const record::EndpointRecord* remote = record.remote.get()) {
    uint64_t counted = 0;
    bool any = false;
    for (const record::IntervalRecord& i : remote->intervals) {
      if (i.omitted || !i.rr) continue;
      counted += i.rr->transactions;
      any = true;
    }
    if (any) s.peer_transactions = counted;
  }
  return s;
}

}  // namespace nicbench::engine
