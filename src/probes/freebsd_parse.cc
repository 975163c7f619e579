#include "probes/freebsd_parse.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

using scan::NextLine;
using scan::NextToken;
using scan::Trim;

// The last whitespace-separated token of `line`, removed from it.
std::string_view PopLastToken(std::string_view& line) {
  line = Trim(line);
  const size_t space = line.find_last_of(" \t");
  std::string_view token = space == std::string_view::npos ? line : line.substr(space + 1);
  line = space == std::string_view::npos ? std::string_view() : Trim(line.substr(0, space));
  return token;
}

std::vector<std::string> SplitCommas(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = Trim(list.substr(0, comma));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

// The text between `open` and the matching `close` after `from` in `line`, or "".
std::string_view Between(std::string_view line, char open, char close) {
  const size_t a = line.find(open);
  const size_t b = a == std::string_view::npos ? a : line.find(close, a + 1);
  if (b == std::string_view::npos) return {};
  return line.substr(a + 1, b - a - 1);
}

// "media: Ethernet autoselect (100baseTX <full-duplex,flag0,flag1>)": the active subtype is
// in the parentheses when the media is autoselected, else the word after "Ethernet".
void ParseMedia(std::string_view value, IfconfigInterface& out) {
  out.media = std::string(value);
  std::string_view active = Between(value, '(', ')');
  if (active.empty()) {
    std::string_view rest = value;
    NextToken(rest);  // "Ethernet"
    active = rest;
  }
  std::string_view options = Between(active, '<', '>');
  std::string_view subtype = NextToken(active);
  out.media_subtype = std::string(subtype);
  out.speed_mbps = MediaSpeedMbps(subtype);
  for (const std::string& option : SplitCommas(options)) {
    if (option == "full-duplex") out.duplex = "full";
    if (option == "half-duplex") out.duplex = "half";
  }
}

// "msk0: flags=8843<UP,BROADCAST,...> metric 0 mtu 1500"
IfconfigInterface ParseIfconfigHeader(std::string_view line) {
  IfconfigInterface out;
  out.name = std::string(line.substr(0, line.find(':')));
  out.flags = SplitCommas(Between(line, '<', '>'));
  const size_t mtu = line.find(" mtu ");
  if (mtu != std::string_view::npos) {
    std::string_view rest = line.substr(mtu + 5);
    if (auto value = scan::ToU64(NextToken(rest))) out.mtu = static_cast<uint32_t>(*value);
  }
  return out;
}

void ParseIfconfigDetail(std::string_view line, IfconfigInterface& out) {
  if (scan::StartsWith(line, "options=")) {
    out.options = SplitCommas(Between(line, '<', '>'));
  } else if (scan::StartsWith(line, "media:")) {
    ParseMedia(Trim(line.substr(6)), out);
  } else if (scan::StartsWith(line, "status:")) {
    out.status = std::string(Trim(line.substr(7)));
  }
}

bool IsHeader(std::string_view raw) {
  if (raw.empty() || scan::IsSpace(raw[0])) return false;
  const size_t colon = raw.find(": flags=");
  return colon != std::string_view::npos && raw.find(' ') > colon;
}

// "0x436c11ab" -> the 16-bit half `high` (true: device) as 4 hex digits, or "".
std::string HalfOf(const std::string& word, bool high) {
  if (word.size() != 10 || !scan::StartsWith(word, "0x")) return {};
  return high ? word.substr(2, 4) : word.substr(6, 4);
}

// "mskc0@pci0:134:0:0: class=0x020000 card=0x3074103c chip=0x436c11ab rev=0x10 hdr=0x00"
std::optional<PciconfDevice> ParsePciconfHeader(std::string_view line) {
  if (line.empty() || scan::IsSpace(line[0])) return {};
  const size_t at = line.find('@');
  const size_t end = line.find(": ");
  if (at == std::string_view::npos || end == std::string_view::npos || at > end) return {};
  PciconfDevice out;
  out.name = std::string(line.substr(0, at));
  out.selector = std::string(line.substr(at + 1, end - at - 1));
  std::string_view rest = line.substr(end + 2);
  for (std::string_view word = NextToken(rest); !word.empty(); word = NextToken(rest)) {
    const size_t eq = word.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = word.substr(0, eq);
    std::string value(word.substr(eq + 1));
    if (key == "class") out.class_code = value;
    if (key == "card" || key == "subvendor") out.card = value;
    if (key == "chip") out.chip = value;
    if (key == "rev") out.revision = value;
  }
  return out;
}

// "    vendor     = 'Intel Corporation'" (also without quotes: "class      = network").
void ParsePciconfDetail(std::string_view line, PciconfDevice& out) {
  const size_t eq = line.find('=');
  if (eq == std::string_view::npos) return;
  std::string_view key = Trim(line.substr(0, eq));
  std::string_view value = Trim(line.substr(eq + 1));
  if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
    value = value.substr(1, value.size() - 2);
  }
  std::string* field = key == "vendor"     ? &out.vendor
                       : key == "device"   ? &out.device
                       : key == "class"    ? &out.class_name
                       : key == "subclass" ? &out.subclass
                                           : nullptr;
  if (field != nullptr) *field = std::string(value);
}

// The leading number of `text` ("5 messages" 5); 0 without one.
uint32_t LeadingNumber(std::string_view text) {
  return static_cast<uint32_t>(std::strtoul(std::string(text.substr(0, 12)).c_str(), nullptr, 10));
}

// pciconf's capability lines (usr.sbin/pciconf/cap.c): "MSI supports N message[s][, 64 bit]
// [enabled with M message[s]]", "MSI-X supports N message[s][, enabled]", and PCI Express's
// "link xW(xMAXW) speed S(MAXS)" on the line after its "PCI-Express" one.
void ParsePciconfCap(std::string_view line, PciconfDevice& out) {
  const size_t eq = line.find("= ");
  const std::string_view cap = eq == std::string_view::npos ? line : line.substr(eq + 2);
  if (scan::StartsWith(cap, "MSI-X supports ")) {
    record::PciInterruptCap c;
    c.messages = LeadingNumber(cap.substr(15));
    c.enabled = cap.find(", enabled") != std::string_view::npos;
    c.enabled_messages = c.enabled ? c.messages : 0;
    out.msix = c;
  } else if (scan::StartsWith(cap, "MSI supports ")) {
    record::PciInterruptCap c;
    c.messages = LeadingNumber(cap.substr(13));
    const size_t with = cap.find("enabled with ");
    c.enabled = with != std::string_view::npos;
    if (c.enabled) c.enabled_messages = LeadingNumber(cap.substr(with + 13));
    out.msi = c;
  } else if (scan::StartsWith(cap, "link x")) {
    record::PciLinkState link;
    const std::string text(cap);
    if (std::sscanf(text.c_str(), "link x%u(x%u) speed %lf(%lf)", &link.current.width,
                    &link.max.width, &link.current.speed_gts, &link.max.speed_gts) == 4) {
      out.link = link;
    }
  }
}

// "CPU 1:  1.2% user,  0.0% nice, 26.3% system,  0.4% interrupt, 73.4% idle"
std::optional<record::CpuShare> ParseTopCpuLine(std::string_view line) {
  std::string_view rest = line.substr(4);
  const size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return {};
  auto cpu = scan::ToU64(Trim(rest.substr(0, colon)));
  if (!cpu) return {};
  record::CpuShare share;
  share.cpu = static_cast<int>(*cpu);
  int seen = 0;
  for (const std::string& part : SplitCommas(rest.substr(colon + 1))) {
    std::string_view item = part;
    const std::string_view number = NextToken(item);
    const std::string_view kind = Trim(item);
    if (number.empty() || number.back() != '%') continue;
    const double value =
        std::strtod(std::string(number.substr(0, number.size() - 1)).c_str(), nullptr);
    double* slot = kind == "user"        ? &share.user
                   : kind == "nice"      ? &share.nice
                   : kind == "system"    ? &share.system
                   : kind == "interrupt" ? &share.irq
                   : kind == "idle"      ? &share.idle
                                         : nullptr;
    if (slot == nullptr) continue;
    *slot = value;
    ++seen;
  }
  if (seen == 0) return {};
  return share;
}

}  // namespace

Result<std::vector<VmstatInterrupt>> ParseVmstatInterrupts(std::string_view text) {
  std::vector<VmstatInterrupt> out;
  while (!text.empty()) {
    std::string_view line = Trim(NextLine(text));
    auto rate = scan::ToU64(PopLastToken(line));
    auto total = scan::ToU64(PopLastToken(line));
    if (!rate || !total || line.empty() || line == "Total") continue;
    VmstatInterrupt row;
    row.total = *total;
    row.rate = *rate;
    const size_t colon = line.find(": ");
    std::string_view source = colon == std::string_view::npos ? line : line.substr(0, colon);
    row.name = std::string(colon == std::string_view::npos ? line : Trim(line.substr(colon + 2)));
    row.irq = std::string(scan::StartsWith(source, "irq") ? source.substr(3) : source);
    out.push_back(std::move(row));
  }
  if (out.empty()) return Fail("no \"irqN: name total rate\" line: not vmstat -i output");
  return out;
}

std::optional<uint64_t> MediaSpeedMbps(std::string_view subtype) {
  size_t digits = 0;
  while (digits < subtype.size() && std::isdigit(static_cast<unsigned char>(subtype[digits]))) {
    ++digits;
  }
  auto number = scan::ToU64(subtype.substr(0, digits));
  if (!number) return std::nullopt;
  const bool giga = digits < subtype.size() && (subtype[digits] == 'G' || subtype[digits] == 'g');
  return giga ? *number * 1000 : *number;
}

Result<std::vector<IfconfigInterface>> ParseIfconfig(std::string_view text) {
  std::vector<IfconfigInterface> out;
  while (!text.empty()) {
    std::string_view raw = NextLine(text);
    if (IsHeader(raw)) {
      out.push_back(ParseIfconfigHeader(raw));
    } else if (!out.empty()) {
      ParseIfconfigDetail(Trim(raw), out.back());
    }
  }
  if (out.empty()) return Fail("no \"name: flags=\" line: not ifconfig output");
  return out;
}

std::string PciconfDevice::VendorId() const { return HalfOf(chip, false); }
std::string PciconfDevice::DeviceId() const { return HalfOf(chip, true); }
std::string PciconfDevice::SubsystemVendorId() const { return HalfOf(card, false); }
std::string PciconfDevice::SubsystemDeviceId() const { return HalfOf(card, true); }

Result<std::vector<PciconfDevice>> ParsePciconf(std::string_view text) {
  std::vector<PciconfDevice> out;
  while (!text.empty()) {
    std::string_view raw = NextLine(text);
    // The detail lines are indented by pciconf; a mail that quotes the output may not keep it.
    if (auto device = ParsePciconfHeader(raw)) {
      out.push_back(std::move(*device));
    } else if (!out.empty()) {
      const std::string_view line = Trim(raw);
      if (scan::StartsWith(line, "cap ") || scan::StartsWith(line, "link x")) {
        ParsePciconfCap(line, out.back());
      } else {
        ParsePciconfDetail(raw, out.back());
      }
    }
  }
  if (out.empty()) return Fail("no \"name@pciD:B:S:F: class=\" line: not pciconf -l output");
  return out;
}

Result<std::vector<record::CpuShare>> ParseTopCpus(std::string_view text) {
  std::vector<record::CpuShare> block, last;
  bool in_block = false;
  while (!text.empty()) {
    std::string_view line = Trim(NextLine(text));
    std::optional<record::CpuShare> share;
    if (scan::StartsWith(line, "CPU ")) share = ParseTopCpuLine(line);
    if (share) {
      if (!in_block) block.clear();
      in_block = true;
      block.push_back(*share);
    } else if (in_block) {
      in_block = false;
      last = block;
    }
  }
  if (in_block) last = block;
  if (last.empty()) return Fail("no \"CPU N: ...% idle\" line: not top -P output");
  return last;
}

std::map<std::string, std::string> ParseSysctl(std::string_view text) {
  std::map<std::string, std::string> out;
  while (!text.empty()) {
    std::string_view line = NextLine(text);
    const size_t colon = line.find(": ");
    if (line.empty() || scan::IsSpace(line[0]) || colon == std::string_view::npos) continue;
    std::string_view name = line.substr(0, colon);
    if (name.find(' ') != std::string_view::npos) continue;
    out.emplace(std::string(name), std::string(Trim(line.substr(colon + 2))));
  }
  return out;
}

}  // namespace nicbench::probes
