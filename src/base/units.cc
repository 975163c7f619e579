#include "base/units.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

namespace nicbench {
namespace {

Result<uint64_t> ParseScaled(std::string_view text, uint64_t base) {
  if (text.empty()) return Fail("empty number");
  uint64_t multiplier = 1;
  char last = text.back();
  switch (last) {
    case 'k':
    case 'K': multiplier = base; break;
    case 'm':
    case 'M': multiplier = base * base; break;
    case 'g':
    case 'G': multiplier = base * base * base; break;
    case 't':
    case 'T': multiplier = base * base * base * base; break;
    default: break;
  }
  std::string_view digits = multiplier == 1 ? text : text.substr(0, text.size() - 1);
  if (digits.empty()) return Fail(fmt::format("'{}' is not a number", text));
  // A fractional part is allowed with a suffix ("1.5M"), as iperf3 allows.
  std::string copy(digits);
  for (char c : copy) {
    if (!(c >= '0' && c <= '9') && c != '.') {
      return Fail(fmt::format("'{}' is not a non-negative number", text));
    }
  }
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (errno != 0 || end != copy.c_str() + copy.size() || !std::isfinite(value)) {
    return Fail(fmt::format("'{}' is not a number", text));
  }
  double scaled = value * static_cast<double>(multiplier);
  if (scaled >= static_cast<double>(std::numeric_limits<uint64_t>::max())) {
    return Fail(fmt::format("'{}' is too large", text));
  }
  return static_cast<uint64_t>(scaled);
}

}  // namespace

Result<uint64_t> ParseByteSize(std::string_view text) { return ParseScaled(text, 1024); }

Result<uint64_t> ParseBitRate(std::string_view text) { return ParseScaled(text, 1000); }

Result<uint64_t> ParseUnsigned(std::string_view text) {
  if (text.empty()) return Fail("empty number");
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return Fail(fmt::format("'{}' is not a non-negative integer", text));
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      return Fail(fmt::format("'{}' is too large", text));
    }
    value = value * 10 + digit;
  }
  return value;
}

Result<double> ParseSeconds(std::string_view text) {
  std::string copy(text);
  if (copy.empty()) return Fail("empty number");
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (errno != 0 || end != copy.c_str() + copy.size() || !std::isfinite(value) || value < 0) {
    return Fail(fmt::format("'{}' is not a non-negative number of seconds", text));
  }
  return value;
}

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double seconds;
  };
  // "ms" before "s": the longer suffix first.
  constexpr Unit kUnits[] = {{"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}};
  double scale = 1;
  std::string_view number = text;
  for (const Unit& u : kUnits) {
    if (text.size() > u.suffix.size() && text.ends_with(u.suffix)) {
      number = text.substr(0, text.size() - u.suffix.size());
      scale = u.seconds;
      break;
    }
  }
  auto value = ParseSeconds(number);
  if (!value || *value * scale > 365.0 * 86400) {
    return Fail(fmt::format("'{}' is not a duration (e.g. 500ms, 30s, 10m, 1h)", text));
  }
  return std::chrono::milliseconds(std::llround(*value * scale * 1000));
}

Scaled ScaleBy(double value, double step) {
  Scaled out{value, 0};
  while (out.value >= step && out.unit < 4) {
    out.value /= step;
    ++out.unit;
  }
  return out;
}

std::string FormatBitRate(double bits_per_second) {
  const Scaled s = ScaleBy(bits_per_second, 1000.0);
  return fmt::format("{:.2f} {}", s.value, kBitRateUnits[s.unit]);
}

std::string FormatBytes(double bytes) {
  const Scaled s = ScaleBy(bytes, 1024.0);
  return fmt::format("{:.2f} {}", s.value, kByteUnits[s.unit]);
}

}  // namespace nicbench
