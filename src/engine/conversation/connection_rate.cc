#include "engine/conversation/connection_rate.h"

#include <algorithm>

#include <fmt/format.h>

namespace nicbench::engine {

ConnectionRate::ConnectionRate(const Clock& clock, Limits limits)
    : clock_(clock), limits_(limits) {}

void ConnectionRate::Refill(Bucket& bucket, MonoTime now) const {
  const double seconds = std::chrono::duration<double>(now - bucket.refilled).count();
  if (seconds > 0) {
    bucket.tokens = std::min(limits_.burst, bucket.tokens + seconds * limits_.per_second);
    bucket.refilled = now;
  }
}

bool ConnectionRate::Admit(const std::string& host) {
  const MonoTime now = clock_.Now();
  auto it = buckets_.find(host);
  if (it == buckets_.end()) {
    if (buckets_.size() >= limits_.max_addresses) Prune(now);
    if (buckets_.size() >= limits_.max_addresses) return true;
    it = buckets_.emplace(host, Bucket{limits_.burst, now, 0}).first;
  }
  Bucket& bucket = it->second;
  Refill(bucket, now);
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

std::optional<std::string> ConnectionRate::NoteClosed(const std::string& host) {
  const MonoTime now = clock_.Now();
  if (!flooding_) {
    flooding_ = true;
    window_start_ = now;
    return fmt::format(
        "nicbench: connections from {} come faster than --max-connections-per-second allows "
        "({:.0f} a second, {:.0f} at once): the excess is closed at once; their count is said "
        "once per {} s",
        host, limits_.per_second, limits_.burst, kLogWindow.count());
  }
  ++unsaid_;
  if (auto it = buckets_.find(host); it != buckets_.end()) ++it->second.closed;
  return std::nullopt;
}

std::string ConnectionRate::CountLine(MonoTime now) const {
  size_t addresses = 0;
  const std::pair<const std::string, Bucket>* most = nullptr;
  for (const auto& entry : buckets_) {
    if (entry.second.closed == 0) continue;
    ++addresses;
    if (most == nullptr || entry.second.closed > most->second.closed) most = &entry;
  }
  std::string from = "from addresses no longer tracked";
  if (most != nullptr) {
    from = fmt::format("from {} address{}, most from {}: {}", addresses, addresses == 1 ? "" : "es",
                       most->first, most->second.closed);
  }
  return fmt::format(
      "nicbench: {} more connections over --max-connections-per-second closed in the last "
      "{:.1f} s ({})",
      unsaid_, std::chrono::duration<double>(now - window_start_).count(), from);
}

std::optional<std::string> ConnectionRate::Tick(bool flush) {
  const MonoTime now = clock_.Now();
  if (now - pruned_ >= kLogWindow) Prune(now);
  if (!flooding_ || (!flush && now - window_start_ < kLogWindow)) return std::nullopt;
  if (unsaid_ == 0) {
    // A whole window without one: the flood is over, and the next is said at once again.
    flooding_ = false;
    return std::nullopt;
  }
  std::string line = CountLine(now);
  unsaid_ = 0;
  for (auto& entry : buckets_) entry.second.closed = 0;
  window_start_ = now;
  if (flush) flooding_ = false;
  return line;
}

std::optional<MonoTime> ConnectionRate::LineDue() const {
  if (!flooding_ || unsaid_ == 0) return std::nullopt;
  return window_start_ + kLogWindow;
}

void ConnectionRate::Prune(MonoTime now) {
  if (now - pruned_ < kPruneEvery) return;
  pruned_ = now;
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    Refill(it->second, now);
    const bool idle = it->second.tokens >= limits_.burst && it->second.closed == 0;
    it = idle ? buckets_.erase(it) : std::next(it);
  }
}

}  // namespace nicbench::engine
