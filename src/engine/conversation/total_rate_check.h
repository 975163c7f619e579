// --server-bitrate-limit: a test's total rate (every stream, both directions) over the last
// window, checked at each interval boundary once a whole window has passed, as iperf3 checks it
// once a second. Reads only the times it is given, so a unit test drives it on a FakeClock.
//
// Thread safety: one owner thread (the server session's controller).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "engine/datapath/data_path.h"
#include "record/test_spec.h"

namespace nicbench::engine {

class TotalRateCheck {
 public:
  // `limit_bits_per_second` 0 = no limit.
  TotalRateCheck(uint64_t limit_bits_per_second, std::chrono::seconds window)
      : limit_(limit_bits_per_second), window_(window) {}

  // The refusal's words when the rate over the window ending at `now` is above the limit.
  std::optional<std::string> Exceeded(MonoTime now, const std::vector<FlowCounters>& counters);

 private:
  uint64_t limit_;
  std::chrono::seconds window_;
  std::deque<std::pair<MonoTime, uint64_t>> history_;
};

// What a spec asks for in total, all streams and both directions (0 = unlimited).
uint64_t RequestedTotalRate(const record::TestSpec& spec);

}  // namespace nicbench::engine
