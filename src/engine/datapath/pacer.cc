#include "engine/datapath/pacer.h"

#include <cstdint>

#include "base/check.h"

namespace nicbench::engine {

Pacer::Pacer(uint64_t rate_bits_per_second, MonoTime start)
    : rate_bits_per_second_(rate_bits_per_second), start_(start) {
  NB_CHECK(rate_bits_per_second > 0);
}

bool Pacer::Green(MonoTime now, uint64_t bytes_sent) const {
  if (bytes_sent == 0) return true;
  if (now <= start_) return false;
  const auto elapsed_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now - start_).count();
  // bits_sent / elapsed < rate, cross-multiplied in 128 bits: 2^64 bytes * 8e9 would overflow
  // 64 bits long before a real run ends.
  using u128 = unsigned __int128;
  const u128 bits_times_ns_per_s = static_cast<u128>(bytes_sent) * 8u * 1'000'000'000u;
  const u128 allowed = static_cast<u128>(rate_bits_per_second_) * static_cast<u128>(elapsed_ns);
  return bits_times_ns_per_s < allowed;
}

uint64_t Pacer::BlocksAllowed(MonoTime now, uint64_t bytes_sent, uint32_t block_bytes,
                              uint32_t burst) const {
  NB_CHECK(block_bytes > 0 && burst > 0);
  // Nothing sent yet is green (as Green): one burst, then whatever the rate allows after it.
  uint64_t first = 0;
  if (bytes_sent == 0) {
    first = burst;
    bytes_sent = static_cast<uint64_t>(block_bytes) * burst;
  }
  if (now <= start_) return first;
  const auto elapsed_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now - start_).count();
  using u128 = unsigned __int128;
  // In bit-nanoseconds, as Green: the target so far minus what went out.
  const u128 sent = static_cast<u128>(bytes_sent) * 8u * 1'000'000'000u;
  const u128 allowed = static_cast<u128>(rate_bits_per_second_) * static_cast<u128>(elapsed_ns);
  if (sent >= allowed) return first;
  const u128 per_burst = static_cast<u128>(block_bytes) * burst * 8u * 1'000'000'000u;
  const u128 bursts = (allowed - sent + per_burst - 1) / per_burst;
  // A flow far behind (it stalled on a full socket) may owe more than 64 bits of blocks only in
  // theory; the caller caps every wakeup anyway.
  const u128 blocks = bursts * burst + first;
  return blocks > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(blocks);
}

}  // namespace nicbench::engine
