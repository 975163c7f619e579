// Host and NIC facts: what `uname`, `ethtool`, `lspci` and `tc` would say about this machine and
// the interface that carries a test. Collected once per run (not per interval). Every field is
// Measured: a fact that cannot be read says why (not supported by the driver, permission
// denied, not present, not in a captured tree). Thread-safe as long as each call has its own
// FileSource.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "probes/file_source.h"
#include "record/facts.h"

namespace nicbench::probes {

// hostname and kernel (/proc/sys/kernel, so a captured tree reports its own machine), CPU model
// (/proc/cpuinfo), online CPU count (/sys/devices/system/cpu/online) and each online CPU's
// cpufreq (ReadCpuFrequencies).
record::HostFacts CollectHostFacts(FileSource& files);

// Governor, driver and current/min/max frequency of each of `cpus` that has
// /sys/devices/system/cpu/cpuN/cpufreq. Unknown (not supported) when none has: a VM, or no
// frequency driver; permission denied when that is why none could be read.
record::Measured<std::vector<record::CpuFrequency>> ReadCpuFrequencies(
    FileSource& files, const std::vector<int>& cpus);

// The interface the kernel would use to reach `peer` (a numeric IPv4/IPv6 address; names are
// resolved by the caller, so a probe never sends a DNS query): a UDP socket is connected to it (no
// packet is sent) and its local address is looked up with getifaddrs. Loopback addresses, and
// addresses of this host itself, give "lo". Error when the name does not resolve or there is no
// route.
Result<std::string> InterfaceForPeer(const std::string& peer);

// Facts of `iface`. From the files: MTU and counters (/sys/class/net/IF), the PCI identity
// (vendor/device ids with names from pci.ids), IRQ mode (MSI-X / MSI / INTx) and vectors with
// their affinity. On the live machine also: driver, versions, bus address, link settings,
// offloads (ethtool -k names), rings, coalescing, channels, driver statistics (SIOCETHTOOL)
// and the root qdisc (rtnetlink). For a captured tree those come from the ethtool and tc texts
// the capture keeps (capture.h, WriteNicTexts), with the reason recorded for one that was
// unknown; a tree without them reports them unknown (kAbsent, "not in a captured tree") except
// driver, speed and duplex, which sysfs also holds.
// Loopback: loopback=true and every NIC field kAbsent ("loopback: no NIC"); MTU, counters and
// qdisc are still reported since they belong to the interface, not to a NIC.
// Error only when the interface does not exist.
Result<record::NicFacts> CollectNicFacts(const std::string& iface, FileSource& files);

// The driver's statistics of `iface` now (ethtool -S), to compare with an earlier reading:
// on a captured tree, its ethtool/IF/S.txt ("not in a captured tree" without one).
record::Measured<std::map<std::string, uint64_t>> ReadDriverStats(const std::string& iface,
                                                                  FileSource& files);

// Where CollectNicFacts looks up PCI names (Debian's pci.ids package).
inline constexpr const char kPciIdsPath[] = "/usr/share/misc/pci.ids";

}  // namespace nicbench::probes
