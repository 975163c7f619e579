// Parsers of /proc/stat, /proc/cpuinfo and CPU lists.
#include <string>

#include "probes/proc_parsers.h"
#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

// "cpu  4705 150 1120 16250 520 30 45 0 0 0" or "cpu3 ...". Columns 8..10 are optional.
Result<CpuJiffies> ParseCpuLine(std::string_view label, std::string_view rest) {
  CpuJiffies cpu;
  if (label.size() > 3) {
    auto index = scan::ToU64(label.substr(3));
    if (!index || *index > 1u << 20)
      return Fail("/proc/stat: bad cpu label '" + std::string(label) + "'");
    cpu.cpu = static_cast<int>(*index);
  }
  uint64_t* fields[] = {&cpu.user, &cpu.nice,    &cpu.system, &cpu.idle,  &cpu.iowait,
                        &cpu.irq,  &cpu.softirq, &cpu.steal,  &cpu.guest, &cpu.guest_nice};
  int count = 0;
  for (std::string_view token = scan::NextToken(rest); !token.empty();
       token = scan::NextToken(rest)) {
    auto value = scan::ToU64(token);
    if (!value)
      return Fail("/proc/stat: bad number '" + std::string(token) + "' on " + std::string(label));
    if (count < 10) *fields[count] = *value;
    ++count;
  }
  // 2.6.0 already had user..softirq (7 columns); older 2.4 had 4.
  if (count < 4) return Fail("/proc/stat: too few columns on " + std::string(label));
  cpu.has_steal = count >= 8;
  cpu.has_guest = count >= 9;
  return cpu;
}

}  // namespace

Result<ProcStat> ParseProcStat(std::string_view text) {
  ProcStat stat;
  bool saw_total = false;
  while (!text.empty()) {
    std::string_view line = scan::NextLine(text);
    std::string_view label = scan::NextToken(line);
    if (scan::StartsWith(label, "cpu")) {
      auto cpu = ParseCpuLine(label, line);
      if (!cpu) return tl::unexpected(cpu.error());
      if (cpu->cpu < 0) {
        stat.total = *cpu;
        saw_total = true;
      } else {
        stat.cpus.push_back(*cpu);
      }
    } else if (label == "ctxt") {
      stat.ctxt = scan::ToU64(scan::NextToken(line));
    } else if (label == "intr") {
      stat.intr_total = scan::ToU64(scan::NextToken(line));
    }
  }
  if (!saw_total) return Fail("/proc/stat: no aggregate cpu line");
  return stat;
}

Result<std::string> ParseCpuModel(std::string_view text) {
  static constexpr std::string_view kKeys[] = {"model name", "Processor", "cpu model"};
  for (std::string_view key : kKeys) {
    std::string_view rest = text;
    while (!rest.empty()) {
      std::string_view line = scan::NextLine(rest);
      size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      if (scan::Trim(line.substr(0, colon)) != key) continue;
      std::string_view value = scan::Trim(line.substr(colon + 1));
      if (!value.empty()) return std::string(value);
    }
  }
  return Fail("/proc/cpuinfo: no model name");
}

// The kernel's own ceiling (CONFIG_NR_CPUS is at most 8192 on every architecture it builds for):
// a list naming a CPU past it, or more CPUs than it, is not a CPU list, and expanding one such as
// "0-949465" would cost a million entries.
constexpr uint64_t kMaxCpus = 8192;

Result<std::vector<int>> ParseCpuList(std::string_view text) {
  std::vector<int> cpus;
  text = scan::Trim(text);
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    size_t dash = part.find('-');
    auto first = scan::ToU64(part.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : scan::ToU64(part.substr(dash + 1));
    if (!first || !last || *last < *first || *last >= kMaxCpus ||
        cpus.size() + (*last - *first) >= kMaxCpus) {
      return Fail("bad CPU list '" + std::string(part) + "'");
    }
    for (uint64_t cpu = *first; cpu <= *last; ++cpu) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

}  // namespace nicbench::probes
