#include "engine/pacer.h"

#include "base/check.h"

namespace nicbench::engine {

Pacer::Pacer(uint64_t rate_bits_per_second, MonoTime start)
    : rate_bits_per_second_(rate_bits_per_second), start_(start) {
  NB_CHECK(rate_bits_per_second > 0);
}

bool Pacer::Green(MonoTime now, uint64_t bytes_sent) const {
  if (bytes_sent == 0) return true;
  if (now <= start_) return false;
  const auto elapsed_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - start_).count();
  // bits_sent / elapsed < rate, cross-multiplied in 128 bits: 2^64 bytes * 8e9 would overflow
  // 64 bits long before a real run ends.
  using u128 = unsigned __int128;
  const u128 bits_times_ns_per_s = static_cast<u128>(bytes_sent) * 8u * 1'000'000'000u;
  const u128 allowed = static_cast<u128>(rate_bits_per_second_) * static_cast<u128>(elapsed_ns);
  return bits_times_ns_per_s < allowed;
}

}  // namespace nicbench::engine
