// A FreeBSD far end's capture: the command outputs under DIR/freebsd (first sample and facts)
// and DIR/later/freebsd (second sample), mapped onto the records a Linux end fills.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>

#include "probes/far_capture_internal.h"
#include "probes/freebsd_parse.h"

namespace nicbench::probes::far {
namespace {

using record::Measured;
using record::Missing;

template <typename T>
Measured<T> NotInCapture(const char* what) {
  return Measured<T>::Unknown(Missing::kNotSupported,
                              std::string("not in a FreeBSD capture: ") + what);
}

std::map<std::string, std::string> Sysctl(const std::string& path) {
  auto text = ReadText(path);
  return text ? ParseSysctl(*text) : std::map<std::string, std::string>{};
}

record::HostFacts HostFacts(const std::string& base) {
  auto kern = Sysctl(base + "/sysctl-kern.txt");
  auto hw = Sysctl(base + "/sysctl-hw.txt");
  auto fact = [](const std::map<std::string, std::string>& values, const char* key) {
    auto it = values.find(key);
    return it == values.end() ? NotInCapture<std::string>(key) : Measured<std::string>(it->second);
  };
  record::HostFacts host;
  host.hostname = fact(kern, "kern.hostname");
  host.kernel = fact(kern, "kern.osrelease");
  host.cpu_model = fact(hw, "hw.model");
  auto ncpu = hw.find("hw.ncpu");
  host.cpu_count = ncpu == hw.end() ? NotInCapture<int>("hw.ncpu")
                                    : Measured<int>(std::atoi(ncpu->second.c_str()));
  return host;
}

// ifconfig's enabled options in ethtool's names where there is one (so the offload rules read
// them); an option that is not listed is off or not supported, ifconfig does not say which.
std::vector<record::OffloadState> Offloads(const IfconfigInterface& ifc) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"RXCSUM", "rx-checksumming"},        {"TXCSUM", "tx-checksumming"},
      {"TSO4", "tcp-segmentation-offload"}, {"TSO6", "tx-tcp6-segmentation"},
      {"LRO", "large-receive-offload"},     {"VLAN_HWTAGGING", "rx-vlan-offload"}};
  std::vector<record::OffloadState> out;
  for (const auto& [option, name] : kNames) {
    const bool on = std::find(ifc.options.begin(), ifc.options.end(), option) != ifc.options.end();
    out.push_back({name, on, false});
  }
  return out;
}

// What a FreeBSD capture does not hold in a form nicbench reads (rings and coalescing are
// per-driver sysctls with per-driver names).
void MarkUnread(record::NicFacts& nic) {
  nic.driver_version = NotInCapture<std::string>("driver version");
  nic.firmware_version = NotInCapture<std::string>("firmware version");
  nic.rings = NotInCapture<record::RingSizes>("ring sizes (per-driver sysctls)");
  nic.coalescing = NotInCapture<record::Coalescing>("coalescing (per-driver sysctls)");
  nic.pause = NotInCapture<record::PauseSettings>("flow control (per-driver sysctls)");
  nic.channels = NotInCapture<record::ChannelCounts>("queue counts (per-driver sysctls)");
  nic.irq_mode = NotInCapture<std::string>("MSI/MSI-X mode (no capability lines in pciconf -lc)");
  nic.counters = NotInCapture<std::map<std::string, uint64_t>>("netstat -I is not parsed");
  nic.qdisc = NotInCapture<record::Qdisc>("FreeBSD has no qdisc");
  nic.pci = NotInCapture<record::PciIdentity>("no pciconf -lv line for the interface");
}

void FillFromIfconfig(const IfconfigInterface& ifc, record::NicFacts& nic) {
  if (ifc.mtu) nic.mtu = *ifc.mtu;
  if (ifc.speed_mbps) nic.speed_mbps = *ifc.speed_mbps;
  if (!ifc.duplex.empty()) nic.duplex = ifc.duplex;
  nic.autoneg = ifc.media.find("autoselect") != std::string::npos;
  nic.offloads = Offloads(ifc);
}

void FillFromPciconf(const PciconfDevice& dev, record::NicFacts& nic) {
  record::PciIdentity pci(dev.VendorId(), dev.DeviceId(), dev.vendor, dev.device);
  pci.subsystem_vendor_id = dev.SubsystemVendorId();
  pci.subsystem_device_id = dev.SubsystemDeviceId();
  if (dev.class_code.size() == 8) pci.class_id = dev.class_code.substr(2, 4);
  pci.class_name = dev.subclass.empty() ? dev.class_name : dev.class_name + "/" + dev.subclass;
  if (dev.revision.size() == 4) pci.revision = dev.revision.substr(2);
  pci.link = NotInCapture<record::PciLinkState>("no PCI-Express line in pciconf -lc");
  pci.msi = NotInCapture<record::PciInterruptCap>("no MSI line in pciconf -lc");
  pci.msix = NotInCapture<record::PciInterruptCap>("no MSI-X line in pciconf -lc");
  nic.pci = std::move(pci);
  nic.bus_info = dev.selector;
}

// The function's capabilities from `pciconf -lc` (the capture's pciconf-lc.txt): its PCI
// Express link and its MSI and MSI-X state, and from them the interrupt mode, as the Linux
// probes tell it (MSI-X when enabled, else MSI when enabled, else INTx).
void FillFromPciconfCaps(const PciconfDevice& dev, record::NicFacts& nic) {
  if (nic.pci.known()) {
    record::PciIdentity& pci = nic.pci.value();
    if (dev.link) pci.link = *dev.link;
    if (dev.msi) pci.msi = *dev.msi;
    if (dev.msix) pci.msix = *dev.msix;
  }
  if (!dev.msi && !dev.msix) return;
  nic.irq_mode = std::string(dev.msix && dev.msix->enabled ? "MSI-X"
                             : dev.msi && dev.msi->enabled ? "MSI"
                                                           : "INTx");
}

// The driver's numeric sysctls under dev.DRIVER.UNIT. ("mac_stats.missed_packets"), the
// FreeBSD form of ethtool -S.
Measured<std::map<std::string, uint64_t>> DriverStats(const std::string& path,
                                                      const std::string& prefix) {
  auto text = ReadText(path);
  if (!text) return NotInCapture<std::map<std::string, uint64_t>>("sysctl dev");
  std::map<std::string, uint64_t> out;
  for (const auto& [name, value] : ParseSysctl(*text)) {
    if (!name.starts_with(prefix) || name.find('%') != std::string::npos) continue;
    char* end = nullptr;
    const unsigned long long number = std::strtoull(value.c_str(), &end, 10);
    if (end != value.c_str() && *end == '\0') out.emplace(name.substr(prefix.size()), number);
  }
  if (out.empty()) return NotInCapture<std::map<std::string, uint64_t>>("no counter in sysctl dev");
  return out;
}

// "em0:rx0" -> "rx0" for the interface or its parent device ("mskc0" for msk0: the line is
// the whole device's, queue ""). nullopt for another device's line.
std::optional<std::string> NicQueue(const std::string& name, const std::string& iface,
                                    const std::string& parent) {
  for (const std::string& dev : {iface, parent}) {
    if (dev.empty() || !name.starts_with(dev)) continue;
    if (name.size() == dev.size()) return std::string();
    if (name[dev.size()] == ':') return name.substr(dev.size() + 1);
  }
  return std::nullopt;
}

}  // namespace

namespace {

struct Names {
  std::string iface, parent;
};

// vmstat -i's counts between the two samples as per-second rates, busiest first.
Measured<std::vector<record::IrqRate>> IrqRates(const std::string& dir, const Names& names,
                                                double seconds) {
  auto first = ReadText(dir + "/freebsd/vmstat-i.txt");
  auto later = ReadText(dir + "/later/freebsd/vmstat-i.txt");
  if (!first || !later) return NotInCapture<std::vector<record::IrqRate>>("vmstat -i twice");
  auto a = ParseVmstatInterrupts(*first);
  auto b = ParseVmstatInterrupts(*later);
  if (!a || !b) {
    return Measured<std::vector<record::IrqRate>>::Unknown(Missing::kError,
                                                           (a ? b.error() : a.error()).ToString());
  }
  std::vector<record::IrqRate> out;
  for (const VmstatInterrupt& line : *b) {
    auto before = std::find_if(a->begin(), a->end(), [&](const VmstatInterrupt& x) {
      return x.irq == line.irq && x.name == line.name;
    });
    const uint64_t base = before == a->end() ? 0 : before->total;
    if (line.total <= base) continue;
    record::IrqRate rate;
    rate.irq = line.irq;
    rate.name = line.name;
    rate.total = line.total - base;
    rate.per_second = seconds > 0 ? static_cast<double>(rate.total) / seconds : 0;
    if (auto queue = NicQueue(line.name, names.iface, names.parent)) {
      rate.nic = true;
      rate.nic_queue = *queue;
    }
    out.push_back(std::move(rate));
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.total > y.total; });
  return out;
}

// top's per-CPU lines of the later sample (its second display: the second before it was taken).
void CpuShares(const std::string& dir, record::HostInterval& sample) {
  auto text = ReadText(dir + "/later/freebsd/top-SHPb.txt");
  Result<std::vector<record::CpuShare>> cpus = Fail("top -SHPb is not in the capture");
  if (text) cpus = ParseTopCpus(*text);
  if (!cpus) {
    sample.cpus = Measured<std::vector<record::CpuShare>>::Unknown(Missing::kNotSupported,
                                                                   cpus.error().ToString());
    sample.cpu_total =
        Measured<record::CpuShare>::Unknown(Missing::kNotSupported, cpus.error().ToString());
    return;
  }
  record::CpuShare total;
  for (const record::CpuShare& cpu : *cpus) {
    for (auto member : {&record::CpuShare::user, &record::CpuShare::nice, &record::CpuShare::system,
                        &record::CpuShare::irq, &record::CpuShare::idle}) {
      total.*member += cpu.*member / static_cast<double>(cpus->size());
    }
  }
  sample.cpus = *cpus;
  sample.cpu_total = total;
}

record::HostInterval Sample(const std::string& dir, const Names& names, double seconds) {
  record::HostInterval sample;
  sample.start = 0;
  sample.end = seconds;
  CpuShares(dir, sample);
  sample.irqs = IrqRates(dir, names, seconds);
  const char* why = "FreeBSD has no such counter in the capture";
  sample.net_rx_softirqs = Measured<std::vector<uint64_t>>::Unknown(Missing::kNotSupported, why);
  sample.net_tx_softirqs = sample.net_rx_softirqs;
  sample.softnet =
      Measured<std::vector<record::SoftnetDelta>>::Unknown(Missing::kNotSupported, why);
  sample.context_switches = Measured<uint64_t>::Unknown(Missing::kNotSupported, why);
  sample.interrupts = Measured<uint64_t>::Unknown(Missing::kNotSupported, why);
  sample.net_counters = NotInCapture<std::map<std::string, int64_t>>("netstat -s is not parsed");
  sample.process = Measured<record::ProcessUsage>::Unknown(Missing::kNotReported, "a capture");
  sample.run_queue = Measured<record::RunQueueDelay>::Unknown(Missing::kNotReported, "a capture");
  sample.nic_counters = NotInCapture<std::map<std::string, int64_t>>("netstat -I is not parsed");
  return sample;
}

}  // namespace

Result<FarCapture> ReadFreebsd(const std::string& dir, const Marker& marker) {
  const std::string base = dir + "/freebsd";
  auto ifconfig_text = ReadText(base + "/ifconfig-a.txt");
  if (!ifconfig_text) return Fail(dir + ": a FreeBSD capture without freebsd/ifconfig-a.txt");
  auto interfaces = ParseIfconfig(*ifconfig_text);
  if (!interfaces) return Fail(dir + ": freebsd/ifconfig-a.txt: " + interfaces.error().ToString());
  auto ifc = std::find_if(interfaces->begin(), interfaces->end(),
                          [&](const IfconfigInterface& i) { return i.name == marker.interface; });
  if (ifc == interfaces->end()) {
    return Fail(dir + ": no interface '" + marker.interface + "' in freebsd/ifconfig-a.txt");
  }
  FarCapture out{marker.os, marker.interface, {}};
  out.end.host = HostFacts(base);
  record::NicFacts& nic = out.end.nic;
  nic.interface = marker.interface;
  nic.loopback = ifc->name.starts_with("lo");
  const std::string driver =
      marker.interface.substr(0, marker.interface.find_first_of("0123456789"));
  const std::string unit = marker.interface.substr(driver.size());
  nic.driver = driver;
  MarkUnread(nic);
  FillFromIfconfig(*ifc, nic);
  auto dev = Sysctl(base + "/sysctl-dev.txt");
  const std::string parent_key = "dev." + driver + "." + unit + ".%parent";
  Names names{marker.interface, dev.contains(parent_key) ? dev[parent_key] : std::string()};
  if (auto text = ReadText(base + "/pciconf-lv.txt")) {
    if (auto devices = ParsePciconf(*text)) {
      for (const PciconfDevice& d : *devices) {
        if (d.name == names.iface || d.name == names.parent) FillFromPciconf(d, nic);
      }
    }
  }
  if (auto text = ReadText(base + "/pciconf-lc.txt")) {
    if (auto devices = ParsePciconf(*text)) {
      for (const PciconfDevice& d : *devices) {
        if (d.name == names.iface || d.name == names.parent) FillFromPciconfCaps(d, nic);
      }
    }
  }
  const std::string prefix = "dev." + driver + "." + unit + ".";
  nic.driver_stats = DriverStats(base + "/sysctl-dev.txt", prefix);
  nic.driver_stats_after = DriverStats(dir + "/later/freebsd/sysctl-dev.txt", prefix);
  out.end.samples.push_back(Sample(dir, names, marker.seconds));
  if (const auto* irqs = out.end.samples.back().irqs.get()) {
    std::vector<record::IrqVector> vectors;
    for (const auto& line : *irqs) {
      if (line.nic) vectors.push_back({line.irq, line.name, "", ""});
    }
    nic.irq_vectors = vectors;
  }
  return out;
}

}  // namespace nicbench::probes::far
