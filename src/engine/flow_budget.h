// SharedBudget: the bytes/blocks end condition shared by every sender flow of a test. Each flow
// reserves its next block with one atomic fetch_add before sending it, so flows on different
// workers never overshoot together and no lock is taken. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/data_path.h"

namespace nicbench::engine {

class SharedBudget {
 public:
  explicit SharedBudget(const SendBudget& limits = {}) : limits_(limits) {}

  // REQUIRES: before any flow reserves (DataPath::SetBudget is before Start).
  void SetLimits(const SendBudget& limits) { limits_ = limits; }

  bool unlimited() const { return limits_.bytes == 0 && limits_.blocks == 0; }

  // Reserves the next block of `block_bytes`. Returns its size, or 0 when the budget is spent.
  // With `exact` the last block under a byte budget is cut short so the total is exactly the
  // budget (TCP); without it whole blocks are granted until the budget is reached (UDP, where a
  // datagram must carry its header and iperf3 sends whole datagrams).
  uint32_t Reserve(uint32_t block_bytes, bool exact) {
    if (limits_.blocks != 0 && blocks_.fetch_add(1, std::memory_order_relaxed) >= limits_.blocks) return 0;
    if (limits_.bytes == 0) return block_bytes;
    const uint64_t before = bytes_.fetch_add(block_bytes, std::memory_order_relaxed);
    if (before >= limits_.bytes) return 0;
    const uint64_t left = limits_.bytes - before;
    return exact && left < block_bytes ? static_cast<uint32_t>(left) : block_bytes;
  }

 private:
  SendBudget limits_;
  std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> blocks_{0};
};

}  // namespace nicbench::engine
