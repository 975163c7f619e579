#include "engine/measure/stall_watch.h"

#include <algorithm>

namespace nicbench::engine {

std::chrono::milliseconds StallWatch::limit() const {
  const bool first = moved_ == 0 && first_limit_.count() > 0;
  if (!first) return limit_;
  return limit_.count() > 0 ? std::min(limit_, first_limit_) : first_limit_;
}

MonoTime StallWatch::deadline() const {
  const std::chrono::milliseconds applies = limit();
  return applies.count() > 0 ? last_move_ + applies : MonoTime::max();
}

bool StallWatch::Stalled(MonoTime now, const std::vector<FlowCounters>& counters) {
  uint64_t moved = 0;
  for (const FlowCounters& c : counters) moved += c.bytes;
  if (moved != moved_) {
    moved_ = moved;
    last_move_ = now;
    return false;
  }
  return limit().count() > 0 && now >= deadline();
}

}  // namespace nicbench::engine
