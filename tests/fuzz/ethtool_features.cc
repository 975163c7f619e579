// The `ethtool -k` grouping of the kernel's feature strings (probes/nic_internal.h
// EthtoolOffloadNames). The strings come from the driver through ETHTOOL_GSTRINGS; the input is
// one feature a line, its first byte's low bits saying active and changeable.
#include <set>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "probes/nic_internal.h"

namespace internal = nicbench::probes::internal;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<internal::KernelFeature> features;
  const std::string_view text = nicbench::fuzz::Text(data, size);
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    features.push_back({std::string(line.substr(1)), (line[0] & 1) != 0, (line[0] & 2) != 0});
  }
  auto offloads = internal::EthtoolOffloadNames(features);
  NICBENCH_FUZZ_CHECK(offloads.size() <= features.size() + 16);
  return 0;
}
