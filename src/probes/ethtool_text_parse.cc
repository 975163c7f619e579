// ethtool -S text, for captured machines and the test fixtures (the live reader uses the
// ETHTOOL_GSTATS ioctl, whose names are the same strings).
#include "probes/proc_parsers.h"
#include "probes/text_scan.h"

namespace nicbench::probes {

Result<std::map<std::string, uint64_t>> ParseEthtoolStatistics(std::string_view text) {
  std::map<std::string, uint64_t> out;
  while (!text.empty()) {
    std::string_view line = scan::Trim(scan::NextLine(text));
    const size_t colon = line.rfind(": ");
    if (colon == std::string_view::npos) continue;
    auto value = scan::ToU64(scan::Trim(line.substr(colon + 2)));
    std::string_view name = scan::Trim(line.substr(0, colon));
    if (!value || name.empty()) continue;
    out.emplace(std::string(name), *value);
  }
  if (out.empty()) return Fail("no \"name: value\" line in the ethtool -S text");
  return out;
}

}  // namespace nicbench::probes
