#include "engine/conversation/total_rate_check.h"

#include <fmt/format.h>

#include "base/units.h"

namespace nicbench::engine {

std::optional<std::string> TotalRateCheck::Exceeded(MonoTime now,
                                                    const std::vector<FlowCounters>& counters) {
  if (limit_ == 0) return std::nullopt;
  uint64_t total = 0;
  for (const FlowCounters& c : counters) total += c.bytes;
  history_.emplace_back(now, total);
  // The samples come at interval boundaries, each taken when the loop woke: a first wake a few
  // ms late on a busy host left the next one just short of a whole window, and the check
  // waited a boundary more (at -t 3, until the client's own end). A window is whole at 90%.
  const auto whole = std::chrono::duration_cast<std::chrono::milliseconds>(window_) * 9 / 10;
  while (history_.size() > 1 && now - history_[1].first >= whole) history_.pop_front();
  const auto& [then, bytes_then] = history_.front();
  const double seconds = std::chrono::duration<double>(now - then).count();
  if (now - then < whole || seconds <= 0) return std::nullopt;
  const double rate = (total - bytes_then) * 8.0 / seconds;
  if (rate <= static_cast<double>(limit_)) return std::nullopt;
  return fmt::format(
      "ended: the test's total rate {} over {} s exceeds the server's "
      "--server-bitrate-limit of {}",
      FormatBitRate(rate), window_.count(), FormatBitRate(static_cast<double>(limit_)));
}

uint64_t RequestedTotalRate(const record::TestSpec& spec) {
  const uint64_t directions = spec.direction == record::Direction::kBidirectional ? 2 : 1;
  return spec.rate_bits_per_second * static_cast<uint64_t>(spec.parallel) * directions;
}

}  // namespace nicbench::engine
