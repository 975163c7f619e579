#include "probes/ethtool_text.h"

#include <cstdint>
#include <optional>

#include "probes/nic_internal.h"
#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

using scan::NextLine;
using scan::Trim;

// "name: value" lines as pairs, in order, the name trimmed (indentation marks nesting in -k).
std::vector<std::pair<std::string, std::string>> NameValueLines(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!text.empty()) {
    std::string_view line = NextLine(text);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    out.emplace_back(std::string(Trim(line.substr(0, colon))),
                     std::string(Trim(line.substr(colon + 1))));
  }
  return out;
}

// The leading number of a value ("256", "256   <---- a note"); nullopt for "n/a" or text.
std::optional<uint32_t> Number(std::string_view value) {
  std::string_view token = scan::NextToken(value);
  auto number = scan::ToU64(token);
  if (!number || *number > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*number);
}

// The two sections of -g and -l: values under "Pre-set maximums:" and under "Current hardware
// settings:", by name.
struct TwoSections {
  std::map<std::string, std::optional<uint32_t>> max, current;
};

TwoSections SplitSections(std::string_view text) {
  TwoSections out;
  std::map<std::string, std::optional<uint32_t>>* section = nullptr;
  for (const auto& [name, value] : NameValueLines(text)) {
    if (name == "Pre-set maximums") {
      section = &out.max;
    } else if (name == "Current hardware settings") {
      section = &out.current;
    } else if (section != nullptr) {
      section->emplace(name, Number(value));
    }
  }
  return out;
}

uint32_t ValueOr0(const std::map<std::string, std::optional<uint32_t>>& section,
                  const std::string& name) {
  auto it = section.find(name);
  return it == section.end() ? 0 : it->second.value_or(0);
}

}  // namespace

Result<std::map<std::string, std::string>> ParseEthtoolDriverInfo(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto& [name, value] : NameValueLines(text)) out.emplace(name, value);
  if (!out.contains("driver")) return Fail("no \"driver:\" line: not ethtool -i output");
  return out;
}

Result<EthtoolSettings> ParseEthtoolSettings(std::string_view text) {
  using record::Measured;
  using record::Missing;
  EthtoolSettings out;
  bool any = false;
  for (const auto& [name, value] : NameValueLines(text)) {
    if (name == "Speed") {
      auto mbps = scan::ToU64(value.substr(0, value.find("Mb/s")));
      out.speed_mbps = mbps && *mbps > 0 ? Measured<uint64_t>(*mbps)
                                         : Measured<uint64_t>::Unknown(Missing::kNotSupported,
                                                                       internal::kSpeedUnknown);
    } else if (name == "Duplex") {
      out.duplex =
          value == "Full" || value == "Half"
              ? Measured<std::string>(value == "Full" ? "full" : "half")
              : Measured<std::string>::Unknown(Missing::kNotSupported, internal::kDuplexUnknown);
    } else if (name == "Auto-negotiation") {
      out.autoneg = value == "on";
    } else {
      continue;
    }
    any = true;
  }
  if (!any)
    return Fail("no \"Speed:\", \"Duplex:\" or \"Auto-negotiation:\" line: not ethtool output");
  return out;
}

Result<std::vector<record::OffloadState>> ParseEthtoolFeatures(std::string_view text) {
  std::vector<record::OffloadState> out;
  for (const auto& [name, value] : NameValueLines(text)) {
    std::string_view rest = value;
    std::string_view state = scan::NextToken(rest);
    if (state != "on" && state != "off") continue;
    out.push_back({name, state == "on", Trim(rest) == "[fixed]"});
  }
  if (out.empty()) return Fail("no \"feature: on|off\" line: not ethtool -k output");
  return out;
}

Result<record::RingSizes> ParseEthtoolRings(std::string_view text) {
  const TwoSections s = SplitSections(text);
  auto rx = s.current.find("RX");
  auto tx = s.current.find("TX");
  if (rx == s.current.end() || tx == s.current.end() || !rx->second || !tx->second) {
    return Fail("no current RX and TX ring sizes: not ethtool -g output");
  }
  return record::RingSizes{*rx->second, *tx->second, ValueOr0(s.max, "RX"), ValueOr0(s.max, "TX")};
}

Result<record::ChannelCounts> ParseEthtoolChannels(std::string_view text) {
  const TwoSections s = SplitSections(text);
  record::ChannelCounts out;
  out.rx = ValueOr0(s.current, "RX");
  out.tx = ValueOr0(s.current, "TX");
  out.other = ValueOr0(s.current, "Other");
  out.combined = ValueOr0(s.current, "Combined");
  out.rx_max = ValueOr0(s.max, "RX");
  out.tx_max = ValueOr0(s.max, "TX");
  out.other_max = ValueOr0(s.max, "Other");
  out.combined_max = ValueOr0(s.max, "Combined");
  if (out.rx + out.tx + out.other + out.combined == 0) {
    return Fail("no channel count: not ethtool -l output");
  }
  return out;
}

Result<record::Coalescing> ParseEthtoolCoalescing(std::string_view text) {
  record::Coalescing out;
  bool rx_usecs = false;
  for (const auto& [name, value] : NameValueLines(text)) {
    if (name == "Adaptive RX") {
      // "Adaptive RX: off  TX: off": the line's one colon split it as "Adaptive RX", "off  TX".
      out.adaptive_rx = value.starts_with("on");
      out.adaptive_tx = value.find("TX: on") != std::string::npos;
    } else if (name == "rx-usecs") {
      out.rx_usecs = Number(value).value_or(0);
      rx_usecs = true;
    } else if (name == "rx-frames") {
      out.rx_frames = Number(value).value_or(0);
    } else if (name == "tx-usecs") {
      out.tx_usecs = Number(value).value_or(0);
    } else if (name == "tx-frames") {
      out.tx_frames = Number(value).value_or(0);
    }
  }
  if (!rx_usecs) return Fail("no \"rx-usecs:\" line: not ethtool -c output");
  return out;
}

Result<record::PauseSettings> ParseEthtoolPause(std::string_view text) {
  record::PauseSettings out;
  bool autoneg = false;
  for (const auto& [name, value] : NameValueLines(text)) {
    if (name == "Autonegotiate") {
      out.autoneg = value.starts_with("on");
      autoneg = true;
    } else if (name == "RX") {
      out.rx = value.starts_with("on");
    } else if (name == "TX") {
      out.tx = value.starts_with("on");
    }
  }
  if (!autoneg) return Fail("no \"Autonegotiate:\" line: not ethtool -a output");
  return out;
}

}  // namespace nicbench::probes

namespace nicbench::probes {

std::string RenderEthtoolDriverInfo(const record::NicFacts& nic) {
  auto value = [](const record::Measured<std::string>& m) { return m.known() ? m.value() : ""; };
  return "driver: " + value(nic.driver) + "\nversion: " + value(nic.driver_version) +
         "\nfirmware-version: " + value(nic.firmware_version) +
         "\nbus-info: " + value(nic.bus_info) + "\n";
}

std::string RenderEthtoolSettings(const record::NicFacts& nic) {
  std::string out = "Settings for " + nic.interface + ":\n";
  out += "\tSpeed: " +
         (nic.speed_mbps.known() ? std::to_string(nic.speed_mbps.value()) + "Mb/s" : "Unknown!") +
         "\n";
  const std::string duplex = nic.duplex.value_or("");
  out += "\tDuplex: " +
         (duplex == "full"   ? std::string("Full")
          : duplex == "half" ? "Half"
                             : "Unknown! (255)") +
         "\n";
  if (nic.autoneg.known())
    out += std::string("\tAuto-negotiation: ") + (nic.autoneg.value() ? "on" : "off") + "\n";
  return out;
}

std::string RenderEthtoolFeatures(const std::vector<record::OffloadState>& offloads) {
  std::string out = "Features:\n";
  for (const auto& o : offloads) {
    out += o.name + ": " + (o.on ? "on" : "off") + (o.fixed ? " [fixed]" : "") + "\n";
  }
  return out;
}

std::string RenderEthtoolRings(const record::RingSizes& r) {
  return "Ring parameters:\nPre-set maximums:\nRX:\t\t" + std::to_string(r.rx_max) + "\nTX:\t\t" +
         std::to_string(r.tx_max) + "\nCurrent hardware settings:\nRX:\t\t" + std::to_string(r.rx) +
         "\nTX:\t\t" + std::to_string(r.tx) + "\n";
}

std::string RenderEthtoolChannels(const record::ChannelCounts& c) {
  auto section = [](uint32_t rx, uint32_t tx, uint32_t other, uint32_t combined) {
    return "RX:\t\t" + std::to_string(rx) + "\nTX:\t\t" + std::to_string(tx) + "\nOther:\t\t" +
           std::to_string(other) + "\nCombined:\t" + std::to_string(combined) + "\n";
  };
  return "Channel parameters:\nPre-set maximums:\n" +
         section(c.rx_max, c.tx_max, c.other_max, c.combined_max) + "Current hardware settings:\n" +
         section(c.rx, c.tx, c.other, c.combined);
}

std::string RenderEthtoolCoalescing(const record::Coalescing& c) {
  return std::string("Coalesce parameters:\nAdaptive RX: ") + (c.adaptive_rx ? "on" : "off") +
         "  TX: " + (c.adaptive_tx ? "on" : "off") + "\n\nrx-usecs: " + std::to_string(c.rx_usecs) +
         "\nrx-frames: " + std::to_string(c.rx_frames) +
         "\n\ntx-usecs: " + std::to_string(c.tx_usecs) +
         "\ntx-frames: " + std::to_string(c.tx_frames) + "\n";
}

std::string RenderEthtoolPause(const record::PauseSettings& p) {
  const auto on = [](bool b) { return b ? "on" : "off"; };
  return std::string("Pause parameters:\nAutonegotiate:\t") + on(p.autoneg) + "\nRX:\t\t" +
         on(p.rx) + "\nTX:\t\t" + on(p.tx) + "\n";
}

std::string RenderEthtoolStatistics(const std::map<std::string, uint64_t>& stats) {
  std::string out = "NIC statistics:\n";
  for (const auto& [name, value] : stats)
    out += "     " + name + ": " + std::to_string(value) + "\n";
  return out;
}

}  // namespace nicbench::probes
