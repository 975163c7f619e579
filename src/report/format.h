// Number formatting shared by the text renderers: iperf3's adaptive units (three significant
// figures, so lines read like iperf3's), counts with k/M suffixes, and the "unknown (reason)"
// text of a Measured value. Internal to src/report. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "record/measured.h"

namespace nicbench::report {

// A rate needs a duration: bytes * 8 / seconds, or nullopt when seconds is not > 0 (or the
// result would not be finite). Every bits_per_second the reports print comes from here.
std::optional<double> BitsPerSecond(double bytes, double seconds);

// "112 MBytes", "1.72 GBytes", "767 KBytes": powers of 1024, iperf3's unit_snprintf rules
// (%4.2f below 9.995, %4.1f below 99.95, else %4.0f).
std::string IperfBytes(double bytes);
// "941 Mbits/sec", "14.8 Gbits/sec": powers of 1000, same precision rules.
std::string IperfBitRate(double bits_per_second);
// IperfBitRate, or "-" padded when the rate is unknown.
std::string IperfBitRateOr(std::optional<double> bits_per_second);

// A rate in iperf3's -f unit: 'k' 'm' 'g' 't' (Kbits/sec ... Tbits/sec, powers of 1000), 'K'
// 'M' 'G' 'T' (KBytes/sec ..., bytes in powers of 1024), anything else adaptive bits/sec as
// IperfBitRate; "-" padded when unknown.
std::string IperfRateOr(std::optional<double> bits_per_second, char format);

// "812", "8.12k", "1.20M": a count or a per-second figure, compact.
std::string CompactCount(double value);

// "unknown (permission denied: needs CAP_NET_ADMIN)".
template <typename T>
std::string UnknownText(const record::Measured<T>& m) {
  std::string text = "unknown (";
  text += record::MissingName(m.why());
  if (!m.detail().empty()) text += ": " + m.detail();
  return text + ")";
}

}  // namespace nicbench::report
