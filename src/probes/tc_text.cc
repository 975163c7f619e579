#include "probes/tc_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <utility>

#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

struct Unit {
  std::string_view name;
  double factor;
};

// tc's units (tc/tc_util.c get_rate and get_size): rates in bits (SI and IEC prefixes) or
// bytes per second; sizes in bytes, "Kb" being 1024 bytes.
constexpr Unit kRateUnits[] = {{"bit", 1},           {"kbit", 1e3},           {"mbit", 1e6},
                               {"gbit", 1e9},        {"tbit", 1e12},          {"kibit", 1024.0},
                               {"mibit", 1048576.0}, {"gibit", 1073741824.0}, {"bps", 8},
                               {"kbps", 8e3},        {"mbps", 8e6},           {"gbps", 8e9}};
constexpr Unit kSizeUnits[] = {
    {"b", 1},         {"", 1},           {"k", 1024.0},       {"kb", 1024.0},
    {"m", 1048576.0}, {"mb", 1048576.0}, {"g", 1073741824.0}, {"gb", 1073741824.0}};

// "100Mbit" -> 1e8 with `units`; nullopt for anything else.
template <size_t N>
std::optional<uint64_t> WithUnit(std::string_view token, const Unit (&units)[N]) {
  double number = 0;
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), number);
  if (error != std::errc() || number < 0) return std::nullopt;
  std::string suffix(end, token.data() + token.size());
  std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const Unit& unit : units) {
    if (suffix != unit.name) continue;
    const double value = std::round(number * unit.factor);
    // 2^64: a larger value does not fit, and converting it would be undefined behaviour.
    return value >= 18446744073709551616.0 ? UINT64_MAX : static_cast<uint64_t>(value);
  }
  return std::nullopt;
}

// The token after `key` on `line` ("rate" in "... rate 100Mbit burst ..."); "" when absent.
std::string_view After(std::string_view line, std::string_view key) {
  while (!line.empty()) {
    if (scan::NextToken(line) == key) return scan::NextToken(line);
  }
  return {};
}

bool IsRootLine(std::string_view line, std::string_view what) {
  if (scan::NextToken(line) != what) return false;
  while (!line.empty()) {
    if (scan::NextToken(line) == "root") return true;
  }
  return false;
}

// The htb class with the largest rate: its rate in bit/s and its overhead.
std::pair<uint64_t, uint32_t> LargestHtbClass(std::string_view classes) {
  std::pair<uint64_t, uint32_t> best{0, 0};
  while (!classes.empty()) {
    std::string_view line = scan::NextLine(classes);
    std::string_view rest = line;
    if (scan::NextToken(rest) != "class" || scan::NextToken(rest) != "htb") continue;
    const uint64_t rate = WithUnit(After(line, "rate"), kRateUnits).value_or(0);
    if (rate <= best.first) continue;
    auto overhead = scan::ToU64(After(line, "overhead"));
    best = {rate, static_cast<uint32_t>(overhead.value_or(0))};
  }
  return best;
}

// "100Mbit" when exact in a unit, else the bits ("12345678bit"): tc reads both.
std::string RateText(uint64_t bits_per_second) {
  static constexpr std::pair<uint64_t, const char*> kUnits[] = {
      {1000000000000ULL, "Tbit"}, {1000000000ULL, "Gbit"}, {1000000ULL, "Mbit"}, {1000ULL, "Kbit"}};
  for (const auto& [factor, name] : kUnits) {
    if (bits_per_second >= factor && bits_per_second % factor == 0) {
      return std::to_string(bits_per_second / factor) + name;
    }
  }
  return std::to_string(bits_per_second) + "bit";
}

}  // namespace

Result<record::Qdisc> ParseTcQdisc(std::string_view qdiscs, std::string_view classes) {
  while (!qdiscs.empty()) {
    std::string_view line = scan::NextLine(qdiscs);
    if (!IsRootLine(line, "qdisc")) continue;
    std::string_view rest = line;
    scan::NextToken(rest);
    record::Qdisc root;
    root.kind = std::string(scan::NextToken(rest));
    if (root.kind == "tbf") {
      root.rate_bits_per_second = WithUnit(After(line, "rate"), kRateUnits).value_or(0);
      root.burst_bytes = WithUnit(After(line, "burst"), kSizeUnits).value_or(0);
      root.overhead_bytes = static_cast<uint32_t>(scan::ToU64(After(line, "overhead")).value_or(0));
    } else if (root.kind == "htb") {
      std::tie(root.rate_bits_per_second, root.overhead_bytes) = LargestHtbClass(classes);
    }
    return root;
  }
  return Fail("no \"qdisc KIND HANDLE: root\" line: not tc qdisc output");
}

std::string RenderTcQdisc(const record::Qdisc& q) {
  std::string line = "qdisc " + q.kind + " 0: root refcnt 2";
  if (q.kind == "tbf") {
    line += " rate " + RateText(q.rate_bits_per_second) + " burst " +
            std::to_string(q.burst_bytes) + "b";
    if (q.overhead_bytes != 0) line += " overhead " + std::to_string(q.overhead_bytes);
  }
  return line + "\n";
}

std::string RenderTcClasses(const record::Qdisc& q) {
  if (q.kind != "htb" || q.rate_bits_per_second == 0) return {};
  std::string line = "class htb 1:1 root prio 0 rate " + RateText(q.rate_bits_per_second);
  if (q.overhead_bytes != 0) line += " overhead " + std::to_string(q.overhead_bytes);
  return line + "\n";
}

}  // namespace nicbench::probes
