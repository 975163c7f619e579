// SharedBudget: the bytes/blocks end condition shared by every sender flow of a test. Each flow
// reserves its next block with one atomic fetch_add before sending it, so flows on different
// workers never overshoot together and no lock is taken. Thread-safe.
//
// It also keeps the receive side's end condition for the end that decides a byte/block test
// (the client of `-R -n`/`-R -k`): the receivers add what they read, and the one that reaches
// the limits writes the done eventfd at once, as iperf3's client ends the test on the block
// that met them. A poll of the counters would let a paced peer send past them meanwhile, and
// what it sent after our end would be neither received nor lost.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "engine/datapath/data_path.h"

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
    if (limits_.blocks != 0 && blocks_.fetch_add(1, std::memory_order_relaxed) >= limits_.blocks)
      return 0;
    if (limits_.bytes == 0) return block_bytes;
    const uint64_t before = bytes_.fetch_add(block_bytes, std::memory_order_relaxed);
    if (before >= limits_.bytes) return 0;
    const uint64_t left = limits_.bytes - before;
    return exact && left < block_bytes ? static_cast<uint32_t>(left) : block_bytes;
  }

  // REQUIRES: before any flow receives; `done_fd` (an eventfd) outlives the flows.
  void SetReceiveLimits(const SendBudget& limits, int done_fd) {
    receive_limits_ = limits;
    receive_done_fd_ = done_fd;
  }
  bool receive_tracked() const { return receive_limits_.bytes != 0 || receive_limits_.blocks != 0; }

  // Adds what a receiver read since its last call; the call that meets the receive limits
  // writes the done fd, once.
  void AddReceived(uint64_t bytes, uint64_t blocks) {
    const uint64_t total_bytes =
        received_bytes_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    const uint64_t total_blocks =
        received_blocks_.fetch_add(blocks, std::memory_order_relaxed) + blocks;
    const bool met = (receive_limits_.bytes != 0 && total_bytes >= receive_limits_.bytes) ||
                     (receive_limits_.blocks != 0 && total_blocks >= receive_limits_.blocks);
    if (!met || receive_met_.exchange(true, std::memory_order_acq_rel) || receive_done_fd_ < 0)
      return;
    const uint64_t one = 1;
    // An eventfd write of 1 only fails if the counter would overflow; it cannot here.
    [[maybe_unused]] ssize_t n = ::write(receive_done_fd_, &one, sizeof(one));
  }

 private:
  SendBudget limits_;
  std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> blocks_{0};
  SendBudget receive_limits_;
  int receive_done_fd_ = -1;
  std::atomic<uint64_t> received_bytes_{0};
  std::atomic<uint64_t> received_blocks_{0};
  std::atomic<bool> receive_met_{false};
};

}  // namespace nicbench::engine
