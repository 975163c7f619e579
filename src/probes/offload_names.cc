// Kernel feature strings (net/ethtool/common.c netdev_features_strings) grouped the way
// `ethtool -k` shows them.
#include <string>

#include "probes/nic_internal.h"

namespace nicbench::probes::internal {
namespace {

struct Group {
  const char* name;     // as ethtool -k prints it
  const char* pattern;  // kernel feature names; '*' matches any run of characters
};

constexpr Group kGroups[] = {
    {"rx-checksumming", "rx-checksum"},
    {"tx-checksumming", "tx-checksum-*"},
    {"scatter-gather", "tx-scatter-gather*"},
    {"tcp-segmentation-offload", "tx-tcp*-segmentation"},
    {"udp-fragmentation-offload", "tx-udp-fragmentation"},
    {"generic-segmentation-offload", "tx-generic-segmentation"},
    {"generic-receive-offload", "rx-gro"},
    {"large-receive-offload", "rx-lro"},
    {"rx-vlan-offload", "rx-vlan-hw-parse"},
    {"tx-vlan-offload", "tx-vlan-hw-insert"},
    {"ntuple-filters", "rx-ntuple-filter"},
    {"receive-hashing", "rx-hashing"},
};

bool Glob(std::string_view pattern, std::string_view text) {
  size_t star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == text;
  std::string_view head = pattern.substr(0, star);
  std::string_view tail = pattern.substr(star + 1);
  if (text.size() < head.size() + tail.size()) return false;
  if (text.substr(0, head.size()) != head) return false;
  return text.substr(text.size() - tail.size()) == tail;
}

bool IsWildcard(const Group& group) {
  return std::string_view(group.pattern).find('*') != std::string_view::npos;
}

}  // namespace

std::vector<record::OffloadState> EthtoolOffloadNames(const std::vector<KernelFeature>& features) {
  std::vector<record::OffloadState> out;
  for (const Group& group : kGroups) {
    bool any_member = false, any_active = false, any_changeable = false;
    for (const KernelFeature& feature : features) {
      if (!Glob(group.pattern, feature.name)) continue;
      any_member = true;
      any_active |= feature.active;
      any_changeable |= feature.changeable;
    }
    if (!any_member) continue;
    out.push_back({group.name, any_active, !any_changeable});
  }
  for (const KernelFeature& feature : features) {
    bool sole_member = false;
    for (const Group& group : kGroups) {
      if (!IsWildcard(group) && feature.name == group.pattern) sole_member = true;
    }
    if (!sole_member) out.push_back({feature.name, feature.active, !feature.changeable});
  }
  return out;
}

void LookupPciNames(std::string_view pci_ids, record::PciIdentity& identity) {
  // Vendor lines start in column 0 ("8086  Intel Corporation"), their devices follow with one
  // tab ("\t10fb  82599ES ..."), subsystems with two. Comments start with '#'.
  bool in_vendor = false;
  while (!pci_ids.empty()) {
    size_t end = pci_ids.find('\n');
    std::string_view line = pci_ids.substr(0, end);
    pci_ids.remove_prefix(end == std::string_view::npos ? pci_ids.size() : end + 1);
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != '\t') {
      if (in_vendor) return;  // the vendor's block ended without the device
      if (line.size() > 6 && line.substr(0, 4) == identity.vendor_id) {
        identity.vendor_name = std::string(line.substr(6));
        in_vendor = true;
      }
      continue;
    }
    if (!in_vendor || line.size() < 8 || line[1] == '\t') continue;
    if (line.substr(1, 4) == identity.device_id) {
      identity.device_name = std::string(line.substr(7));
      return;
    }
  }
}

}  // namespace nicbench::probes::internal
