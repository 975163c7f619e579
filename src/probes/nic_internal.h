// Internal pieces of CollectNicFacts (nic_facts.cc), one per kernel interface. Not part of the
// layer's API. Each fills its members of NicFacts, leaving unknown members with their reason.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "probes/file_source.h"
#include "probes/nic_device.h"
#include "record/facts.h"
#include "record/host_sample.h"

namespace nicbench::probes::internal {

// SIOCETHTOOL: driver info, link settings, features, rings, coalescing, channels, driver
// statistics. Live machine only.
void FillFromEthtool(const std::string& iface, record::NicFacts& facts);

// ETHTOOL_GSTATS alone: the driver's statistics now (ethtool -S). Live machine only.
record::Measured<std::map<std::string, uint64_t>> ReadDriverStats(const std::string& iface);

// Why a string of ETHTOOL_GDRVINFO is unknown when the driver leaves it empty; the captured
// texts' reader says the same of an empty "version:" line, so a capture reads back as live.
inline constexpr const char kEmptyDriver[] = "driver gave no name";
inline constexpr const char kEmptyDriverVersion[] = "driver gave no version";
inline constexpr const char kEmptyFirmwareVersion[] = "driver reports no firmware version";
inline constexpr const char kEmptyBusInfo[] = "driver reports no bus address";
// Speed and duplex the driver does not know (SPEED_UNKNOWN, DUPLEX_UNKNOWN, sysfs's "-1").
inline constexpr const char kSpeedUnknown[] = "driver reports speed unknown";
inline constexpr const char kDuplexUnknown[] = "driver reports duplex unknown";

// A captured tree's ethtool and tc texts (nic_texts.cc; layout in capture.h): the facts the
// ioctls and rtnetlink gave when it was captured, each parsed, or unknown with the reason
// recorded beside it. A fact whose file the tree lacks is left as it is.
void FillFromCapturedTexts(FileSource& files, record::NicFacts& nic);

// ethtool/IF/S.txt of a captured tree; kAbsent "not in a captured tree" without one.
record::Measured<std::map<std::string, uint64_t>> CapturedDriverStats(FileSource& files,
                                                                      const std::string& iface);

// rtnetlink RTM_GETQDISC (and RTM_GETTCLASS for htb): the root qdisc and its rate.
// Live machine only.
record::Measured<record::Qdisc> ReadRootQdisc(const std::string& iface);
// The root qdisc's backlog and drops now (bql_inflight_bytes left unknown).
record::Measured<record::QueueSample> ReadRootBacklog(const std::string& iface);

// ethtool -k names for the kernel's feature strings: the groups ethtool prints on top
// ("tcp-segmentation-offload" is on when any "tx-tcp*-segmentation" is), then every kernel
// feature that is not the only member of such a group, by its own name. `fixed` is
// true when the feature cannot be changed (for a group: when none of its members can).
struct KernelFeature {
  std::string name;  // "tx-tcp-segmentation"
  bool active = false;
  bool changeable = false;
};
std::vector<record::OffloadState> EthtoolOffloadNames(const std::vector<KernelFeature>& features);

// Vendor and device names from pci.ids text (ids lower-case hex without "0x").
void LookupPciNames(std::string_view pci_ids, record::PciIdentity& identity);

}  // namespace nicbench::probes::internal
