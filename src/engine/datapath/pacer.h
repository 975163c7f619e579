// Pacer: iperf3's rate rule for one sending flow. A flow may start another block only while its
// average rate since it started is below the target; the worker asks on every tick of its
// pacing timer (pacing_timer_us) and after each burst of blocks. Averaging over the whole run
// means a flow that stalled (a full socket) catches up afterwards, as iperf3's does.
// Pure value; owned by one worker thread.
#pragma once

#include <cstdint>

#include "base/clock.h"

namespace nicbench::engine {

class Pacer {
 public:
  // REQUIRES: rate_bits_per_second > 0.
  Pacer(uint64_t rate_bits_per_second, MonoTime start);

  // True while bytes_sent * 8 / (now - start) is below the target. Nothing sent yet is always
  // green, so the first block goes out at once (iperf3 computes 0 bits/s there too).
  bool Green(MonoTime now, uint64_t bytes_sent) const;

  // How many more blocks of `block_bytes` the rule lets out now, in bursts of `burst`: the
  // count a loop of Green() checks, one per burst, would send before turning red. A batching
  // sender (sendmmsg, UDP GSO) asks once per batch instead of once per datagram and stays
  // exactly on the same schedule. 0 = red. REQUIRES: block_bytes > 0, burst > 0.
  uint64_t BlocksAllowed(MonoTime now, uint64_t bytes_sent, uint32_t block_bytes,
                         uint32_t burst) const;

  uint64_t rate_bits_per_second() const { return rate_bits_per_second_; }
  MonoTime start() const { return start_; }

 private:
  uint64_t rate_bits_per_second_;
  MonoTime start_;
};

}  // namespace nicbench::engine
