#include <algorithm>
#include <string>

#include "probes/collect_facts.h"
#include "probes/nic_device.h"
#include "probes/nic_internal.h"
#include "probes/pci_config.h"
#include "probes/proc_parsers.h"
#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

using record::Measured;
using record::Missing;

constexpr int kArphrdLoopback = 772;  // include/uapi/linux/if_arp.h ARPHRD_LOOPBACK

template <typename T>
Measured<T> Absent(const char* why) {
  return Measured<T>::Unknown(Missing::kAbsent, why);
}

void MarkAllNicFieldsAbsent(record::NicFacts& facts, const char* why) {
  facts.driver = facts.driver_version = facts.firmware_version = facts.bus_info =
      Absent<std::string>(why);
  facts.pci = Absent<record::PciIdentity>(why);
  facts.speed_mbps = Absent<uint64_t>(why);
  facts.duplex = Absent<std::string>(why);
  facts.autoneg = Absent<bool>(why);
  facts.offloads = Absent<std::vector<record::OffloadState>>(why);
  facts.rings = Absent<record::RingSizes>(why);
  facts.coalescing = Absent<record::Coalescing>(why);
  facts.channels = Absent<record::ChannelCounts>(why);
  facts.pause = Absent<record::PauseSettings>(why);
  facts.irq_mode = Absent<std::string>(why);
  facts.irq_vectors = Absent<std::vector<record::IrqVector>>(why);
  facts.driver_stats = Absent<std::map<std::string, uint64_t>>(why);
  facts.qdisc = Absent<record::Qdisc>(why);
  facts.numa_node = Absent<int>(why);
  facts.local_cpus = Absent<std::string>(why);
}

void FillInterfaceFiles(FileSource& files, const std::string& base, record::NicFacts& facts) {
  if (auto mtu = files.ReadTrimmed(base + "/mtu")) {
    auto value = scan::ToU64(*mtu);
    if (value)
      facts.mtu = static_cast<uint32_t>(*value);
    else
      facts.mtu = Measured<uint32_t>::Unknown(Missing::kError, "bad mtu '" + *mtu + "'");
  } else {
    facts.mtu = UnknownFrom<uint32_t>(mtu.error());
  }
  auto names = files.ListDir(base + "/statistics");
  if (!names) {
    facts.counters = UnknownFrom<std::map<std::string, uint64_t>>(names.error());
    return;
  }
  std::map<std::string, uint64_t> counters;
  for (const std::string& name : *names) {
    auto text = files.ReadTrimmed(base + "/statistics/" + name);
    if (!text) continue;
    if (auto value = scan::ToU64(*text)) counters[name] = *value;
  }
  facts.counters = std::move(counters);
}

// Speed and duplex from sysfs (a captured tree has no ethtool): "-1" and "unknown" mean the
// driver does not know.
void FillLinkFromSysfs(FileSource& files, const std::string& base, record::NicFacts& facts) {
  auto speed = files.ReadTrimmed(base + "/speed");
  auto mbps = speed ? scan::ToU64(*speed) : std::nullopt;
  if (mbps && *mbps > 0)
    facts.speed_mbps = *mbps;
  else if (!speed)
    facts.speed_mbps = UnknownFrom<uint64_t>(speed.error());
  else
    facts.speed_mbps = Measured<uint64_t>::Unknown(Missing::kNotSupported, internal::kSpeedUnknown);
  auto duplex = files.ReadTrimmed(base + "/duplex");
  if (duplex && (*duplex == "full" || *duplex == "half"))
    facts.duplex = *duplex;
  else if (!duplex)
    facts.duplex = UnknownFrom<std::string>(duplex.error());
  else
    facts.duplex = Measured<std::string>::Unknown(Missing::kNotSupported, internal::kDuplexUnknown);
}

std::string HexId(std::string text) {
  if (text.rfind("0x", 0) == 0) text.erase(0, 2);
  return text;
}

void FillPci(FileSource& files, const NicDevice& nic, record::NicFacts& facts) {
  if (nic.pci_address.empty()) {
    facts.pci = Absent<record::PciIdentity>("not a PCI device");
    return;
  }
  std::string dir = "/sys/bus/pci/devices/" + nic.pci_address;
  auto vendor = files.ReadTrimmed(dir + "/vendor");
  auto device = files.ReadTrimmed(dir + "/device");
  if (!vendor || !device) {
    facts.pci = UnknownFrom<record::PciIdentity>(!vendor ? vendor.error() : device.error());
    return;
  }
  record::PciIdentity identity;
  identity.vendor_id = HexId(*vendor);
  identity.device_id = HexId(*device);
  // pci.ids describes the hardware, not the host state, so it is read from this machine even
  // for a captured tree.
  DirFileSource local("/");
  std::string ids;
  if (local.ReadInto(kPciIdsPath, ids)) internal::LookupPciNames(ids, identity);
  FillPciDetails(files, nic.pci_address, identity);
  facts.pci = std::move(identity);
}

void FillIrqs(FileSource& files, const NicDevice& nic, record::NicFacts& facts) {
  if (nic.pci_address.empty()) {
    facts.irq_mode = Absent<std::string>("not a PCI device");
    facts.irq_vectors = Absent<std::vector<record::IrqVector>>("not a PCI device");
    return;
  }
  std::vector<record::IrqVector> vectors;
  std::string text;
  auto interrupts = files.ReadInto("/proc/interrupts", text)
                        ? ParseInterrupts(text)
                        : Result<Interrupts>(Fail("no /proc/interrupts"));
  auto name_of = [&](const std::string& irq) -> std::string {
    if (!interrupts) return {};
    for (const InterruptLine& line : interrupts->lines) {
      if (line.irq == irq) return line.name;
    }
    return {};
  };
  std::vector<std::string> irqs;
  if (nic.msi_irqs.empty()) {
    facts.irq_mode = std::string("INTx");
    auto legacy = files.ReadTrimmed("/sys/bus/pci/devices/" + nic.pci_address + "/irq");
    if (legacy && *legacy != "0") irqs.push_back(*legacy);
  } else {
    bool msix = std::any_of(nic.msi_irqs.begin(), nic.msi_irqs.end(),
                            [](const auto& entry) { return entry.second == "msix"; });
    facts.irq_mode = std::string(msix ? "MSI-X" : "MSI");
    for (const auto& entry : nic.msi_irqs) irqs.push_back(entry.first);
    std::sort(irqs.begin(), irqs.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
  }
  for (const std::string& irq : irqs) {
    auto affinity = files.ReadTrimmed("/proc/irq/" + irq + "/smp_affinity_list");
    auto effective = files.ReadTrimmed("/proc/irq/" + irq + "/effective_affinity_list");
    vectors.push_back(
        {irq, name_of(irq), affinity.value_or(std::string()), effective.value_or(std::string())});
  }
  facts.irq_vectors = std::move(vectors);
}

// The PCI function's NUMA node and local CPUs (drivers/pci/pci-sysfs.c). numa_node is -1 when
// the firmware gives no proximity for the device: a one-node machine, or a VM.
void FillNuma(FileSource& files, const NicDevice& nic, record::NicFacts& facts) {
  if (nic.pci_address.empty()) {
    facts.numa_node = Absent<int>("not a PCI device");
    facts.local_cpus = Absent<std::string>("not a PCI device");
    return;
  }
  const std::string dir = "/sys/bus/pci/devices/" + nic.pci_address;
  auto node = files.ReadTrimmed(dir + "/numa_node");
  if (!node) {
    facts.numa_node = UnknownFrom<int>(node.error());
  } else if (auto value = scan::ToU64(*node)) {
    facts.numa_node = static_cast<int>(*value);
  } else {
    facts.numa_node = Measured<int>::Unknown(
        Missing::kNotSupported, "numa_node " + *node + ": the firmware gives the device no node");
  }
  auto cpus = files.ReadTrimmed(dir + "/local_cpulist");
  if (cpus) {
    facts.local_cpus = *cpus;
  } else {
    facts.local_cpus = UnknownFrom<std::string>(cpus.error());
  }
}

void FillCapturedOnly(FileSource& files, const std::string& base, record::NicFacts& facts) {
  const char* why = "not in a captured tree";
  MarkAllNicFieldsAbsent(facts, why);
  if (auto driver = files.ReadLink(base + "/device/driver")) {
    size_t slash = driver->rfind('/');
    facts.driver = slash == std::string::npos ? *driver : driver->substr(slash + 1);
  }
  FillLinkFromSysfs(files, base, facts);
}

}  // namespace

Measured<std::map<std::string, uint64_t>> ReadDriverStats(const std::string& iface,
                                                          FileSource& files) {
  if (!files.IsLive()) return internal::CapturedDriverStats(files, iface);
  return internal::ReadDriverStats(iface);
}

Result<record::NicFacts> CollectNicFacts(const std::string& iface, FileSource& files) {
  record::NicFacts facts;
  facts.interface = iface;
  const std::string base = "/sys/class/net/" + iface;
  auto type = files.ReadTrimmed(base + "/type");
  if (!type) return Fail("no interface '" + iface + "'", type.error().sys_errno);
  FillInterfaceFiles(files, base, facts);
  if (*type == std::to_string(kArphrdLoopback)) {
    facts.loopback = true;
    MarkAllNicFieldsAbsent(facts, "loopback: no NIC");
    if (files.IsLive())
      facts.qdisc = internal::ReadRootQdisc(iface);
    else
      internal::FillFromCapturedTexts(files, facts);
    return facts;
  }
  NicDevice nic = LocateNicDevice(files, iface);
  if (files.IsLive()) {
    internal::FillFromEthtool(iface, facts);
    facts.qdisc = internal::ReadRootQdisc(iface);
  } else {
    FillCapturedOnly(files, base, facts);
    internal::FillFromCapturedTexts(files, facts);
  }
  FillPci(files, nic, facts);
  FillIrqs(files, nic, facts);
  FillNuma(files, nic, facts);
  return facts;
}

}  // namespace nicbench::probes
