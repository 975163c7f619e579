#include "report/format.h"

#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "base/units.h"
#include "report/text_report.h"

namespace nicbench::report {
namespace {

// iperf3 (src/units.c, unit_snprintf) keeps about three significant figures.
std::string ThreeFigures(double value, const char* unit) {
  if (value < 9.995) return fmt::format("{:4.2f} {}", value, unit);
  if (value < 99.95) return fmt::format("{:4.1f} {}", value, unit);
  return fmt::format("{:4.0f} {}", value, unit);
}

}  // namespace

std::optional<double> BitsPerSecond(double bytes, double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds) || !std::isfinite(bytes)) return std::nullopt;
  const double rate = bytes * 8.0 / seconds;
  if (!std::isfinite(rate)) return std::nullopt;
  return rate;
}

std::string IperfBytes(double bytes) {
  const Scaled s = ScaleBy(bytes, 1024.0);
  return ThreeFigures(s.value, kByteUnits[s.unit]);
}

std::string IperfBitRate(double bits_per_second) {
  const Scaled s = ScaleBy(bits_per_second, 1000.0);
  return ThreeFigures(s.value, kBitRateUnits[s.unit]);
}

std::string IperfBitRateOr(std::optional<double> bits_per_second) {
  return bits_per_second ? IperfBitRate(*bits_per_second) : "   - bits/sec";
}

std::string IperfRateOr(std::optional<double> bits_per_second, char format) {
  static constexpr std::string_view kLetters = "kmgt";
  const size_t bits_unit = kLetters.find(format);
  const size_t bytes_unit = kLetters.find(static_cast<char>(format + ('a' - 'A')));
  const bool upper = format >= 'A' && format <= 'Z';
  if (!bits_per_second || (bits_unit == std::string_view::npos && !upper) ||
      (upper && bytes_unit == std::string_view::npos)) {
    return IperfBitRateOr(bits_per_second);
  }
  static const char* const kBits[] = {"Kbits/sec", "Mbits/sec", "Gbits/sec", "Tbits/sec"};
  static const char* const kBytes[] = {"KBytes/sec", "MBytes/sec", "GBytes/sec", "TBytes/sec"};
  if (!upper) {
    return ThreeFigures(*bits_per_second / std::pow(1000.0, bits_unit + 1.0), kBits[bits_unit]);
  }
  return ThreeFigures(*bits_per_second / 8.0 / std::pow(1024.0, bytes_unit + 1.0),
                      kBytes[bytes_unit]);
}

std::string PciCardText(const record::PciIdentity& p) {
  std::string text;
  if (!p.subsystem_vendor_id.empty()) {
    text += "card=" + p.subsystem_vendor_id + ":" + p.subsystem_device_id;
    if (!p.subsystem_name.empty()) text += " (" + p.subsystem_name + ")";
  }
  if (!p.class_id.empty()) {
    text += (text.empty() ? "" : " ") + std::string("class=") + p.class_id;
    if (!p.class_name.empty()) text += " (" + p.class_name + ")";
  }
  if (!p.revision.empty()) text += (text.empty() ? "" : " ") + std::string("rev=") + p.revision;
  return text.empty() ? "unknown" : text;
}

std::string PciLinkText(const record::Measured<record::PciLinkState>& link) {
  if (!link.known()) return UnknownText(link);
  const record::PciLinkState& l = link.value();
  return fmt::format("x{}(x{}) speed {:.1f}({:.1f}) GT/s", l.current.width, l.max.width,
                     l.current.speed_gts, l.max.speed_gts);
}

std::string PciIrqCapText(const char* name, const record::Measured<record::PciInterruptCap>& cap) {
  if (!cap.known()) return std::string(name) + " " + UnknownText(cap);
  const record::PciInterruptCap& c = cap.value();
  std::string text =
      fmt::format("{} supports {} message{}", name, c.messages, c.messages == 1 ? "" : "s");
  if (c.enabled) text += fmt::format(", enabled with {}", c.enabled_messages);
  return text;
}

std::string CompactCount(double value) {
  if (!std::isfinite(value)) return "-";
  if (value < 1000.0) return fmt::format("{:.0f}", value);
  if (value < 1e6) return fmt::format("{:.3g}k", value / 1e3);
  if (value < 1e9) return fmt::format("{:.3g}M", value / 1e6);
  return fmt::format("{:.3g}G", value / 1e9);
}

}  // namespace nicbench::report
