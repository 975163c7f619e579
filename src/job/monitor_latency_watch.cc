// The latency probe's conditions and its evidence for host events (docs/monitor.md, "Events").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "analysis/statistics.h"
#include "job/monitor_rules.h"

namespace nicbench::job {
namespace {

using record::EventKind;

// Intervals older than this are dropped: a host event's span is --saturated-for and a little.
constexpr double kLiveSeconds = 300;

double Median(std::vector<double> values) {
  auto s = analysis::Summarize(std::move(values));
  return s ? s->median : 0;
}

// The nearest-rank value at `quantile` of pooled histogram buckets (midpoints), us; 0 when
// empty. The buckets are within 1% of their values (base/latency_histogram.h).
double Quantile(std::vector<record::LatencyBucket> buckets, double quantile) {
  std::sort(
      buckets.begin(), buckets.end(),
      [](const record::LatencyBucket& a, const record::LatencyBucket& b) { return a.us < b.us; });
  uint64_t total = 0;
  for (const record::LatencyBucket& b : buckets) total += b.count;
  if (total == 0) return 0;
  const auto rank = static_cast<uint64_t>(std::ceil(quantile * static_cast<double>(total)));
  uint64_t seen = 0;
  for (const record::LatencyBucket& b : buckets) {
    seen += b.count;
    if (seen >= rank) return b.us;
  }
  return buckets.back().us;
}

// Probes of the window at or above `threshold_us`, from its whole distribution; nullopt when the
// window has none (the summary alone).
std::optional<uint64_t> ProbesAbove(const ProbeWindow& window, double threshold_us) {
  if (window.buckets.empty()) return std::nullopt;
  uint64_t n = 0;
  for (const record::LatencyBucket& b : window.buckets) {
    if (b.us >= threshold_us) n += b.count;
  }
  return n;
}

std::optional<Condition> Unanswered(const ProbeWindow& window, const std::string& what,
                                    double loss_percent) {
  if (window.sent == 0) return std::nullopt;
  const uint64_t lost = window.sent > window.answered ? window.sent - window.answered : 0;
  const double percent = 100.0 * static_cast<double>(lost) / static_cast<double>(window.sent);
  if (percent < loss_percent || lost == 0) return std::nullopt;
  return Condition{EventKind::kLoss,
                   "probe",
                   fmt::format("{:.1f}% of the latency probes unanswered", percent),
                   {fmt::format("{} of {} {} probes unanswered", lost, window.sent, what)}};
}

}  // namespace

std::vector<Condition> LatencyWatch::Judge(const ProbeWindow& window) {
  std::vector<Condition> out;
  const std::string what = window.what == "connect" ? "TCP connect time" : "request/response";
  what_ = what;
  if (auto loss = Unanswered(window, what, t_.loss_percent)) out.push_back(std::move(*loss));
  if (!window.latency || window.latency->count == 0) return out;
  const double p99 = window.latency->p99_us;
  latest_ = baseline_p99_us_.empty() ? fmt::format("{} p99 {:.2f} ms", what, p99 / 1000)
                                     : fmt::format("{} p99 {:.2f} ms, baseline {:.2f} ms", what,
                                                   p99 / 1000, Median(baseline_p99_us_) / 1000);
  if (static_cast<int>(baseline_p99_us_.size()) < t_.baseline_windows) {
    baseline_p99_us_.push_back(p99);
    return out;
  }
  const double base = Median(baseline_p99_us_);
  const double threshold = std::max(base * t_.latency_factor, base + t_.latency_floor_ms * 1000);
  const std::optional<uint64_t> slow = ProbesAbove(window, threshold);
  if (p99 < threshold || (slow && *slow < t_.latency_slow_probes)) {
    high_windows_ = 0;
    return out;
  }
  // One slow window on a busy host is noise; the event needs them to last.
  if (++high_windows_ < t_.latency_windows) return out;
  Condition up{EventKind::kLatencyUp,
               "probe",
               fmt::format("{} p99 {:.2f} ms against a baseline of {:.2f} ms", what, p99 / 1000,
                           base / 1000),
               {fmt::format("p50 {:.2f} ms, p99 {:.2f} ms, max {:.2f} ms over {} probes",
                            window.latency->p50_us / 1000, p99 / 1000,
                            window.latency->max_us / 1000, window.latency->count)}};
  if (slow) {
    up.evidence.push_back(fmt::format("{} of the {} probes took {:.2f} ms or more", *slow,
                                      window.latency->count, threshold / 1000));
  }
  out.push_back(std::move(up));
  return out;
}

void LatencyWatch::Live(const ProbeInterval& interval, double at_unix) {
  live_.push_back(LiveInterval{at_unix, interval});
  while (!live_.empty() && live_.front().end_unix < at_unix - kLiveSeconds) live_.pop_front();
}

std::string LatencyWatch::During(double since_unix, double now_unix) const {
  std::vector<record::LatencyBucket> pooled;
  uint64_t probes = 0;
  double first_unix = now_unix;
  for (const LiveInterval& l : live_) {
    // An interval counts when most of it lies after the condition began.
    const double start_unix = l.end_unix - l.interval.seconds;
    if (l.end_unix - l.interval.seconds / 2 < since_unix || l.end_unix > now_unix) continue;
    first_unix = std::min(first_unix, start_unix);
    for (const record::LatencyBucket& b : l.interval.buckets) {
      pooled.push_back(b);
      probes += b.count;
    }
  }
  if (probes == 0) return latest_.empty() ? "" : "the last window, before this began: " + latest_;
  const double p99 = Quantile(std::move(pooled), 0.99);
  const std::string span =
      fmt::format("{} over the last {:.0f} s ({} probes): p99 {:.2f} ms", what_,
                  std::max(now_unix - first_unix, 1.0), probes, p99 / 1000);
  if (baseline_p99_us_.empty()) return span;
  return fmt::format("{}, baseline {:.2f} ms", span, Median(baseline_p99_us_) / 1000);
}

}  // namespace nicbench::job
