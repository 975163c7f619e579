#include "base/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace nicbench {
namespace {

constexpr uint64_t kSub = 1u << LatencyHistogram::kSubBucketBits;  // 64

}  // namespace

size_t LatencyHistogram::BucketOf(uint64_t ns) {
  if (ns < kLinearLimit) return static_cast<size_t>(ns);
  const int octave = std::bit_width(ns) - 1;  // ns in [2^octave, 2^(octave+1)), octave >= 7
  if (octave >= kTopOctave) return kBuckets - 1;
  const int shift = octave - kSubBucketBits;
  return kLinearLimit + static_cast<size_t>(octave - kSubBucketBits - 1) * kSub +
         static_cast<size_t>((ns >> shift) - kSub);
}

uint64_t LatencyHistogram::BucketLow(size_t bucket) {
  if (bucket < kLinearLimit) return bucket;
  if (bucket >= kBuckets - 1) return uint64_t{1} << kTopOctave;
  const size_t k = bucket - kLinearLimit;
  const int octave = static_cast<int>(k / kSub) + kSubBucketBits + 1;
  const int shift = octave - kSubBucketBits;
  return (kSub + k % kSub) << shift;
}

uint64_t LatencyHistogram::BucketHigh(size_t bucket) {
  if (bucket >= kBuckets - 1) return UINT64_MAX;
  return BucketLow(bucket + 1) - 1;
}

void LatencyHistogram::Record(uint64_t ns) {
  ++counts_[BucketOf(ns)];
  ++count_;
  sum_ns_ += ns;
  min_ns_ = std::min(min_ns_, ns);
  max_ns_ = std::max(max_ns_, ns);
}

void LatencyHistogram::Add(const LatencyHistogram& other) {
  for (size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ns_ += other.sum_ns_;
  min_ns_ = std::min(min_ns_, other.min_ns_);
  max_ns_ = std::max(max_ns_, other.max_ns_);
}

LatencyHistogram LatencyHistogram::Since(const LatencyHistogram& earlier) const {
  LatencyHistogram d;
  size_t lowest = kBuckets, highest = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    // A snapshot taken mid-record can be one behind in a bucket: never let it wrap.
    d.counts_[i] = counts_[i] >= earlier.counts_[i] ? counts_[i] - earlier.counts_[i] : 0;
    if (d.counts_[i] != 0) {
      lowest = std::min(lowest, i);
      highest = i;
    }
  }
  if (lowest == kBuckets) return d;
  for (size_t i = 0; i < kBuckets; ++i) d.count_ += d.counts_[i];
  d.sum_ns_ = sum_ns_ >= earlier.sum_ns_ ? sum_ns_ - earlier.sum_ns_ : 0;
  d.min_ns_ = std::max(min_ns_, BucketLow(lowest));
  d.max_ns_ = std::min(max_ns_, BucketHigh(highest));
  return d;
}

double LatencyHistogram::ValueAtQuantile(double quantile) const {
  if (count_ == 0) return 0;
  const double q = std::clamp(quantile, 0.0, 1.0);
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * count_)));
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen < rank) continue;
    const double low = static_cast<double>(BucketLow(i));
    const double high =
        i == kBuckets - 1 ? static_cast<double>(max_ns_) : static_cast<double>(BucketHigh(i));
    const double mid = i < kLinearLimit ? low : (low + high) / 2;
    return std::clamp(mid, static_cast<double>(min_ns()), static_cast<double>(max_ns_));
  }
  return static_cast<double>(max_ns_);
}

AtomicLatencyHistogram::AtomicLatencyHistogram()
    : counts_(new std::atomic<uint64_t>[LatencyHistogram::kBuckets]) {
  for (size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    counts_[i].store(0, std::memory_order_relaxed);
  }
}

LatencyHistogram AtomicLatencyHistogram::Snapshot() const {
  LatencyHistogram h;
  for (size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    h.counts_[i] = counts_[i].load(std::memory_order_relaxed);
  }
  h.count_ = 0;
  for (size_t i = 0; i < LatencyHistogram::kBuckets; ++i) h.count_ += h.counts_[i];
  h.sum_ns_ = sum_ns_.load(std::memory_order_relaxed);
  h.min_ns_ = min_ns_.load(std::memory_order_relaxed);
  h.max_ns_ = max_ns_.load(std::memory_order_relaxed);
  return h;
}

}  // namespace nicbench
