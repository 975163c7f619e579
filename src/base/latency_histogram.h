// LatencyHistogram: counts of durations in nanoseconds in log-linear buckets, in the spirit of
// HdrHistogram: values below 128 ns each have a bucket of their own; above, every power of two
// is split into 64 equal buckets, so a bucket is at most 1/64 of its values wide and its
// midpoint is within 1/128 (0.78%) of any value in it. Percentiles are read as the midpoint of
// the bucket that holds the nearest-rank value, clamped to the exact minimum and maximum, so
// every percentile is within 1% of the exact one. Values from 2^40 ns (18 minutes) up share the
// last bucket (the exact maximum is still kept).
//
// AtomicLatencyHistogram is the data-path form: one writer (the worker thread that owns a flow)
// records with relaxed loads and stores, no read-modify-write and no lock; any thread may take a
// Snapshot() as a LatencyHistogram, which the interval loop subtracts and merges. A snapshot
// taken while the writer records may see a bucket and the count one value apart; the next one
// is exact again.
//
// Thread safety: LatencyHistogram is a plain value; AtomicLatencyHistogram as above.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace nicbench {

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 6;                        // 64 buckets per octave
  static constexpr uint64_t kLinearLimit = 2u << kSubBucketBits;  // 128: exact below
  static constexpr int kTopOctave = 40;                           // 2^40 ns and up: one bucket
  static constexpr size_t kBuckets =
      kLinearLimit + size_t{kTopOctave - kSubBucketBits - 1} * (size_t{1} << kSubBucketBits) + 1;

  LatencyHistogram() : counts_(kBuckets, 0) {}

  static size_t BucketOf(uint64_t ns);
  static uint64_t BucketLow(size_t bucket);   // smallest value of the bucket
  static uint64_t BucketHigh(size_t bucket);  // largest value of the bucket

  void Record(uint64_t ns);
  // Adds another histogram's counts (merging flows or threads).
  void Add(const LatencyHistogram& other);
  // This minus an earlier snapshot of the same cumulative histogram: the values recorded in
  // between. min and max become those of the buckets left (within the bucket error), clamped to
  // the later snapshot's exact extremes.
  LatencyHistogram Since(const LatencyHistogram& earlier) const;

  uint64_t count() const { return count_; }
  uint64_t sum_ns() const { return sum_ns_; }
  uint64_t min_ns() const { return count_ ? min_ns_ : 0; }
  uint64_t max_ns() const { return max_ns_; }
  double MeanNs() const { return count_ ? static_cast<double>(sum_ns_) / count_ : 0.0; }
  // The nearest-rank value at `quantile` (0..1], e.g. 0.99 for p99; 0 when empty.
  double ValueAtQuantile(double quantile) const;
  uint64_t CountAt(size_t bucket) const { return counts_[bucket]; }

 private:
  friend class AtomicLatencyHistogram;
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t sum_ns_ = 0;
  uint64_t min_ns_ = UINT64_MAX;
  uint64_t max_ns_ = 0;
};

class AtomicLatencyHistogram {
 public:
  AtomicLatencyHistogram();
  // REQUIRES: only the one owning thread calls Record.
  void Record(uint64_t ns) {
    Bump(counts_[LatencyHistogram::BucketOf(ns)]);
    sum_ns_.store(sum_ns_.load(std::memory_order_relaxed) + ns, std::memory_order_relaxed);
    if (ns < min_ns_.load(std::memory_order_relaxed)) min_ns_.store(ns, std::memory_order_relaxed);
    if (ns > max_ns_.load(std::memory_order_relaxed)) max_ns_.store(ns, std::memory_order_relaxed);
  }
  // Any thread. The count is the sum of the buckets read, so percentiles stay consistent.
  LatencyHistogram Snapshot() const;

 private:
  static void Bump(std::atomic<uint64_t>& a) {
    a.store(a.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
  std::atomic<uint64_t> sum_ns_{0}, min_ns_{UINT64_MAX}, max_ns_{0};
};

}  // namespace nicbench
