// A running test's stall: no byte moved for too long (--rcv-timeout). Thread safety: one owner
// thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "base/clock.h"
#include "engine/datapath/data_path.h"

namespace nicbench::engine {

// Watches a running test's data for a stall (iperf3's --rcv-timeout, here on both directions):
// Stalled once no flow's byte count has moved for `limit` (0 = never), or, before the first
// byte has moved at all, for `first_limit` when that is shorter (0 = `limit` alone): a test
// that has never moved anything is no slow link but a peer holding a slot.
class StallWatch {
 public:
  StallWatch(MonoTime start, std::chrono::milliseconds limit,
             std::chrono::milliseconds first_limit = std::chrono::milliseconds(0))
      : limit_(limit), first_limit_(first_limit), last_move_(start) {}
  // When the test counts as stalled if nothing moves before then (MonoTime::max() = never).
  MonoTime deadline() const;
  bool Stalled(MonoTime now, const std::vector<FlowCounters>& counters);
  // The limit that applies now (the first-data one until a byte has moved).
  std::chrono::milliseconds limit() const;

 private:
  std::chrono::milliseconds limit_;
  std::chrono::milliseconds first_limit_;
  MonoTime last_move_;
  uint64_t moved_ = 0;
};

}  // namespace nicbench::engine
