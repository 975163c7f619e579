// Parser of /proc/interrupts (kernel/irq/proc.c show_interrupts() and each arch's
// arch_show_interrupts()).
#include <string>

#include "probes/proc_parsers.h"
#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

bool IsHwirqTrigger(std::string_view token) {
  // "5-edge", "3145728-edge", "0-fasteoi" (4.x+), or "-virq" / "-ioapic-level" (Xen).
  size_t dash = token.find('-');
  if (dash == std::string_view::npos || dash + 1 == token.size()) return false;
  for (size_t i = 0; i < dash; ++i) {
    char c = token[i];
    bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex && c != 'x') return false;
  }
  return true;
}

bool IsTriggerWord(std::string_view token) {
  return token == "Edge" || token == "Level" || token == "edge" || token == "level";
}

// Splits what follows the counts of a numeric line into chip, hwirq/trigger and names.
void SplitNumericTail(std::string_view tail, InterruptLine& line) {
  std::string_view rest = tail;
  line.chip = std::string(scan::NextToken(rest));
  std::string_view after_chip = rest;
  std::string_view next = scan::NextToken(rest);
  if (IsHwirqTrigger(next)) {
    line.hwirq = std::string(next);
  } else if (scan::ToU64(next) && !rest.empty()) {
    // ARM GIC style: "GICv3  27 Level  arch_timer".
    std::string_view after_number = rest;
    std::string_view trigger = scan::NextToken(rest);
    if (IsTriggerWord(trigger)) {
      line.hwirq = std::string(next) + " " + std::string(trigger);
    } else {
      line.hwirq = std::string(next);
      rest = after_number;
    }
  } else {
    rest = after_chip;  // old joined form "IR-PCI-MSI-edge": names follow the chip directly
  }
  line.name = std::string(scan::Trim(rest));
}

Result<InterruptLine> ParseLine(std::string_view text, int cpu_count) {
  InterruptLine line;
  std::string_view rest = text;
  std::string_view label = scan::NextToken(rest);
  if (label.size() < 2 || label.back() != ':') {
    return Fail("/proc/interrupts: line without 'NAME:' label: '" + std::string(text) + "'");
  }
  label.remove_suffix(1);
  line.irq = std::string(label);
  line.numeric = scan::ToU64(label).has_value();
  line.per_cpu.reserve(static_cast<size_t>(cpu_count));
  for (int i = 0; i < cpu_count; ++i) {
    std::string_view before = rest;
    std::string_view token = scan::NextToken(rest);
    auto count = scan::ToU64(token);
    if (!count) {
      rest = before;  // fewer count columns (ERR, MIS) or a tail right away
      break;
    }
    line.per_cpu.push_back(*count);
  }
  std::string_view tail = scan::Trim(rest);
  if (line.numeric) {
    SplitNumericTail(tail, line);
  } else {
    line.name = std::string(tail);
  }
  return line;
}

}  // namespace

uint64_t InterruptLine::Total() const {
  uint64_t sum = 0;
  for (uint64_t count : per_cpu) sum += count;
  return sum;
}

Result<Interrupts> ParseInterrupts(std::string_view text) {
  Interrupts result;
  std::string_view header = scan::NextLine(text);
  for (std::string_view token = scan::NextToken(header); !token.empty();
       token = scan::NextToken(header)) {
    auto id = scan::StartsWith(token, "CPU") ? scan::ToU64(token.substr(3)) : std::nullopt;
    if (!id || *id > 1u << 20) {
      return Fail("/proc/interrupts: bad header column '" + std::string(token) + "'");
    }
    result.cpu_ids.push_back(static_cast<int>(*id));
  }
  result.cpu_count = static_cast<int>(result.cpu_ids.size());
  if (result.cpu_count == 0) return Fail("/proc/interrupts: no CPU columns in the header");
  while (!text.empty()) {
    std::string_view raw = scan::NextLine(text);
    if (scan::Trim(raw).empty()) continue;
    auto line = ParseLine(raw, result.cpu_count);
    if (!line) return tl::unexpected(line.error());
    result.lines.push_back(std::move(*line));
  }
  return result;
}

}  // namespace nicbench::probes
