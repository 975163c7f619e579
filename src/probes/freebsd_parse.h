// Parsers of the FreeBSD command outputs that `nicbench collect --script` captures on a far end
// that runs no nicbench: `vmstat -i`, `ifconfig -a`, `pciconf -lv`, the CPU lines of
// `top -SHPb` and `sysctl` name/value lines. Pure functions over text; formats as printed by
// FreeBSD 8 to 14 (the seed posts' own output is the test fixture).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "record/facts.h"
#include "record/host_sample.h"

namespace nicbench::probes {

// One `vmstat -i` line: "irq257: em0:rx0   27335698   988".
struct VmstatInterrupt {
  std::string irq;     // "257" (from "irq257:"); the whole source for lines such as "cpu0:timer"
  std::string name;    // "em0:rx0", "hpet0 uhci0+"
  uint64_t total = 0;  // since boot
  uint64_t rate = 0;   // per second, averaged since boot by vmstat
};
// Error when no line has a count (not vmstat -i output). The "Total" line is left out.
Result<std::vector<VmstatInterrupt>> ParseVmstatInterrupts(std::string_view text);

// One interface of `ifconfig -a`.
struct IfconfigInterface {
  std::string name;                    // "msk0"
  std::vector<std::string> flags;      // "UP", "RUNNING", ...
  std::optional<uint32_t> mtu;         // "mtu 1500"
  std::vector<std::string> options;    // "RXCSUM", "TSO4", ... from options=...<...>
  std::string media;                   // "Ethernet autoselect (100baseTX <full-duplex,flag0>)"
  std::string media_subtype;           // the active one: "100baseTX"
  std::string duplex;                  // "full" / "half" / "" when the media line does not say
  std::optional<uint64_t> speed_mbps;  // from media_subtype: 100baseTX 100, 10Gbase-SR 10000
  std::string status;                  // "active", "no carrier"; "" when absent
};
// Error when no interface header ("name: flags=") is found.
Result<std::vector<IfconfigInterface>> ParseIfconfig(std::string_view text);

// Speed of an ifmedia subtype name: the leading number, times 1000 with a G ("2500Base-T" 2500,
// "10Gbase-SR" 10000, "25GBase-CR" 25000); nullopt when it has none ("autoselect", "none").
std::optional<uint64_t> MediaSpeedMbps(std::string_view subtype);

// One device of `pciconf -lv`.
struct PciconfDevice {
  std::string name;                              // "mskc0", "none3" for a function without a driver
  std::string selector;                          // "pci0:134:0:0"
  std::string class_code, card, chip, revision;  // "0x020000", "0x3074103c", "0x436c11ab", "0x10"
  std::string vendor, device, class_name, subclass;  // the quoted/named lines that follow
  // From the capability lines of `pciconf -lc` ("cap 05[d0] = MSI supports 1 message, 64 bit
  // enabled with 1 message", "cap 10[e0] = PCI-Express ..." and its "link x1(x1) speed
  // 2.5(2.5)" line, "cap 11[a0] = MSI-X supports 5 messages[, enabled]"); unset without them.
  std::optional<record::PciLinkState> link;
  std::optional<record::PciInterruptCap> msi, msix;
  // chip= and card= split: low 16 bits the vendor, high 16 bits the device ("11ab", "436c").
  std::string VendorId() const;
  std::string DeviceId() const;
  std::string SubsystemVendorId() const;
  std::string SubsystemDeviceId() const;
};
Result<std::vector<PciconfDevice>> ParsePciconf(std::string_view text);

// The per-CPU lines of `top -P` ("CPU 0:  0.0% user,  0.0% nice,  0.0% system,  100% interrupt,
// 0.0% idle"), from the last display in the text (top -b -d 2 prints two; the second covers
// the delay, the first the time since boot). "interrupt" is stored as irq; FreeBSD has no
// separate softirq: its network stack's work shows as system or interrupt.
Result<std::vector<record::CpuShare>> ParseTopCpus(std::string_view text);

// `sysctl NAME` output: "name: value" lines; a value that goes on over lines (%pnpinfo rarely
// does) keeps its first line only.
std::map<std::string, std::string> ParseSysctl(std::string_view text);

}  // namespace nicbench::probes
