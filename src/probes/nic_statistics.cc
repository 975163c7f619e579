// The NIC's error and drop counters, read at every interval boundary so that drops at the NIC
// during the test are seen as deltas (not as totals since boot).
#include <string>

#include "probes/host_snapshot.h"
#include "probes/text_scan.h"

namespace nicbench::probes {

const char* const kNicCounterNames[] = {
    "rx_packets",     "tx_packets",        "rx_errors",         "tx_errors",
    "rx_dropped",     "tx_dropped",        "rx_missed_errors",  "rx_fifo_errors",
    "rx_over_errors", "rx_crc_errors",     "rx_frame_errors",   "rx_length_errors",
    "tx_fifo_errors", "tx_carrier_errors", "tx_aborted_errors", "collisions"};
const size_t kNicCounterCount = sizeof kNicCounterNames / sizeof kNicCounterNames[0];

Result<std::map<std::string, int64_t>> ReadNicStatistics(FileSource& files, std::string& buffer,
                                                         const std::string& iface) {
  std::map<std::string, int64_t> out;
  const std::string dir = "/sys/class/net/" + iface + "/statistics/";
  Error last{"no counter read"};
  for (size_t i = 0; i < kNicCounterCount; ++i) {
    if (auto s = files.ReadInto(dir + kNicCounterNames[i], buffer); !s) {
      last = s.error();
      continue;
    }
    auto value = scan::ToI64(scan::Trim(buffer));
    if (value) out.emplace(kNicCounterNames[i], *value);
  }
  if (out.empty()) return tl::unexpected(Error{dir + ": " + last.message, last.sys_errno});
  return out;
}

}  // namespace nicbench::probes
