// Parsing and formatting of sizes and rates, in the conventions iperf3 users know:
// sizes (-l, -n, -w) take K/M/G/T suffixes as powers of 1024; rates (-b) take k/m/g/t as
// powers of 1000. Both accept either case. Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace nicbench {

// "128K" -> 131072. Rejects negatives, empty input, trailing junk and overflow.
Result<uint64_t> ParseByteSize(std::string_view text);

// "100M" -> 100000000 bit/s. Same rules as ParseByteSize but decimal multipliers.
Result<uint64_t> ParseBitRate(std::string_view text);

// A plain non-negative integer with no suffix ("5001"); rejects junk and overflow.
Result<uint64_t> ParseUnsigned(std::string_view text);

// Seconds as a decimal number ("0.5", "10"); rejects negatives and junk.
Result<double> ParseSeconds(std::string_view text);

// A duration: a decimal number with a unit, "500ms", "0.2s", "30s", "10m", "1h", "2d"; a bare
// number is seconds. Rejects negatives, junk and other units; the error names the forms.
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

// A value scaled down by `step` (1000 for rates, 1024 for bytes) until below it, at most four
// times, and the index of its unit in kBitRateUnits / kByteUnits. Shared by every formatter.
struct Scaled {
  double value = 0;
  int unit = 0;
};
Scaled ScaleBy(double value, double step);
inline constexpr const char* kBitRateUnits[] = {"bits/sec", "Kbits/sec", "Mbits/sec", "Gbits/sec",
                                                "Tbits/sec"};
inline constexpr const char* kByteUnits[] = {"Bytes", "KBytes", "MBytes", "GBytes", "TBytes"};

// 1.23 Gbits/sec style: value scaled by 1000s with 2 decimals and the unit name.
std::string FormatBitRate(double bits_per_second);

// 1.50 GBytes style: value scaled by 1024s with 2 decimals (iperf3's byte column).
std::string FormatBytes(double bytes);

}  // namespace nicbench
