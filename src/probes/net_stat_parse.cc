// Parsers of /proc/softirqs, /proc/net/softnet_stat, /proc/net/snmp and /proc/net/netstat.
#include <string>

#include "probes/proc_parsers.h"
#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

Result<std::vector<uint64_t>> ParseCounts(std::string_view rest, std::string_view what) {
  std::vector<uint64_t> counts;
  for (std::string_view token = scan::NextToken(rest); !token.empty();
       token = scan::NextToken(rest)) {
    auto value = scan::ToU64(token);
    if (!value) return Fail(std::string(what) + ": bad number '" + std::string(token) + "'");
    counts.push_back(*value);
  }
  return counts;
}

}  // namespace

Result<Softirqs> ParseSoftirqs(std::string_view text) {
  Softirqs result;
  std::string_view header = scan::NextLine(text);
  for (std::string_view token = scan::NextToken(header); !token.empty();
       token = scan::NextToken(header)) {
    if (!scan::StartsWith(token, "CPU")) return Fail("/proc/softirqs: bad header");
    ++result.cpu_count;
  }
  if (result.cpu_count == 0) return Fail("/proc/softirqs: no CPU columns in the header");
  while (!text.empty()) {
    std::string_view line = scan::NextLine(text);
    std::string_view label = scan::NextToken(line);
    if (label != "NET_RX:" && label != "NET_TX:") continue;
    auto counts = ParseCounts(line, "/proc/softirqs");
    if (!counts) return tl::unexpected(counts.error());
    (label == "NET_RX:" ? result.net_rx : result.net_tx) = std::move(*counts);
  }
  return result;
}

Result<std::vector<SoftnetRow>> ParseSoftnetStat(std::string_view text) {
  std::vector<SoftnetRow> rows;
  while (!text.empty()) {
    std::string_view line = scan::NextLine(text);
    if (scan::Trim(line).empty()) continue;
    uint64_t columns[16] = {};
    int count = 0;
    for (std::string_view token = scan::NextToken(line); !token.empty();
         token = scan::NextToken(line)) {
      auto value = scan::ToU64(token, 16);
      if (!value) return Fail("/proc/net/softnet_stat: bad hex '" + std::string(token) + "'");
      if (count < 16) columns[count] = *value;
      ++count;
    }
    if (count < 9) return Fail("/proc/net/softnet_stat: fewer than 9 columns");
    SoftnetRow row;
    row.columns = count;
    row.processed = columns[0];
    row.dropped = columns[1];
    row.time_squeeze = columns[2];
    if (count >= 10) row.received_rps = columns[9];
    if (count >= 11) row.flow_limit_count = columns[10];
    // Offline CPUs are skipped (net/core/net-procfs.c), so the row position is the CPU only
    // when no index column exists (before 5.10).
    row.cpu = count >= 13 ? static_cast<int>(columns[12]) : static_cast<int>(rows.size());
    rows.push_back(row);
  }
  if (rows.empty()) return Fail("/proc/net/softnet_stat: empty");
  return rows;
}

Result<std::map<std::string, int64_t>> ParseSnmp(std::string_view text) {
  std::map<std::string, int64_t> counters;
  while (!text.empty()) {
    std::string_view names = scan::NextLine(text);
    if (scan::Trim(names).empty()) continue;
    std::string_view values = scan::NextLine(text);
    std::string_view names_prefix = scan::NextToken(names);
    std::string_view values_prefix = scan::NextToken(values);
    if (names_prefix.empty() || names_prefix.back() != ':' || names_prefix != values_prefix) {
      return Fail("snmp: header/value lines do not pair at '" + std::string(names_prefix) + "'");
    }
    std::string_view group = names_prefix.substr(0, names_prefix.size() - 1);
    while (true) {
      std::string_view name = scan::NextToken(names);
      std::string_view value = scan::NextToken(values);
      if (name.empty() && value.empty()) break;
      if (name.empty() || value.empty()) {
        return Fail("snmp: " + std::string(group) + " has unequal name and value counts");
      }
      auto number = scan::ToI64(value);
      // Counters are unsigned long in the kernel; one past INT64_MAX is kept as its bit pattern.
      if (!number) {
        if (auto big = scan::ToU64(value)) number = static_cast<int64_t>(*big);
      }
      if (!number)
        return Fail("snmp: bad value '" + std::string(value) + "' for " + std::string(name));
      std::string key(group);
      key += '.';
      key += name;
      counters[std::move(key)] = *number;
    }
  }
  return counters;
}

}  // namespace nicbench::probes
