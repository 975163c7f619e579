// Facts about a host and the NIC that carries the test: what `ethtool`, `lspci`, `ip link` and
// `tc` would tell. Every field is Measured: unknown with a reason, never a made-up zero. Filled by
// probes; plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "record/measured.h"

namespace nicbench::record {

// One CPU's frequency scaling (/sys/devices/system/cpu/cpuN/cpufreq), read when the test ends
// so the frequency is the one the load left it at. Frequencies in kHz as sysfs gives them; 0 =
// the file was not there.
struct CpuFrequency {
  int cpu = 0;
  std::string governor;      // scaling_governor: "performance", "powersave", "schedutil", ...
  std::string driver;        // scaling_driver: "intel_pstate", "acpi-cpufreq", "amd-pstate", ...
  uint64_t current_khz = 0;  // scaling_cur_freq, else cpuinfo_cur_freq
  uint64_t min_khz = 0, max_khz = 0;  // cpuinfo_min_freq, cpuinfo_max_freq: the hardware's range
};

struct HostFacts {
  Measured<std::string> hostname;
  Measured<std::string> kernel;     // uname -r
  Measured<std::string> cpu_model;  // /proc/cpuinfo "model name"
  Measured<int> cpu_count;          // online CPUs
  // Per online CPU that has cpufreq; unknown (not supported) when none has: a VM's vCPUs, or no
  // frequency driver. Never guessed from /proc/cpuinfo's "cpu MHz", which a VM makes up.
  Measured<std::vector<CpuFrequency>> cpu_frequencies;
};

struct OffloadState {
  std::string name;  // ethtool feature name: "tcp-segmentation-offload", "generic-receive-offload"
  bool on = false;
  bool fixed = false;  // cannot be changed ("[fixed]")
};

struct RingSizes {
  uint32_t rx = 0, tx = 0, rx_max = 0, tx_max = 0;
};

struct ChannelCounts {
  uint32_t rx = 0, tx = 0, other = 0, combined = 0;
  uint32_t rx_max = 0, tx_max = 0, other_max = 0, combined_max = 0;
};

struct Coalescing {
  uint32_t rx_usecs = 0, rx_frames = 0, tx_usecs = 0, tx_frames = 0;
  bool adaptive_rx = false, adaptive_tx = false;
};

// Ethernet flow control (IEEE 802.3x PAUSE frames), as `ethtool -a` shows it: whether the NIC
// sends a pause when its receive side runs full (tx) and stops sending when it receives one (rx),
// and whether the two ends negotiate it.
struct PauseSettings {
  bool autoneg = false, rx = false, tx = false;
};

struct IrqVector {
  std::string irq;       // "45"
  std::string name;      // "eth0-TxRx-0"
  std::string affinity;  // smp_affinity_list, e.g. "0-3": where it may be delivered
  // effective_affinity_list (kernel 4.13+), e.g. "2": where the interrupt controller really
  // delivers it, one CPU of `affinity` on x86. Empty when the kernel lacks the file.
  std::string effective_affinity;
};

struct Qdisc {
  std::string kind;                   // "tbf", "htb", "fq_codel", "noqueue"
  uint64_t rate_bits_per_second = 0;  // 0 when the qdisc does not shape
  // tc's "overhead": bytes added to each packet's length (skb->len, which on Ethernet devices
  // includes the 14-byte header) when the rate is charged; 0 when not set.
  uint32_t overhead_bytes = 0;
  // tbf's bucket in bytes (its burst), 0 when unknown or not tbf. A segment burst (a TSO/GSO
  // skb) that fits in it is charged as one packet, overhead once (net/sched/sch_tbf.c).
  uint64_t burst_bytes = 0;
};

// A PCI Express link: its speed per lane in GT/s (2.5, 5, 8, 16, 32, 64) and its width in lanes.
struct PciLink {
  double speed_gts = 0;
  uint32_t width = 0;
};

struct PciLinkState {
  PciLink current, max;  // negotiated (Link Status) and capable (Link Capabilities)
};

// An MSI or MSI-X capability, as `pciconf -c` and `lspci -vv` show it.
struct PciInterruptCap {
  uint32_t messages = 0;  // vectors the function supports
  bool enabled = false;
  uint32_t enabled_messages = 0;  // MSI: vectors enabled (2^MME); MSI-X: `messages` when enabled
};

struct PciIdentity {
  PciIdentity() = default;
  PciIdentity(std::string vendor, std::string device, std::string vendor_label = {},
              std::string device_label = {})
      : vendor_id(std::move(vendor)),
        device_id(std::move(device)),
        vendor_name(std::move(vendor_label)),
        device_name(std::move(device_label)) {}

  std::string vendor_id, device_id;      // "8086", "10fb"
  std::string vendor_name, device_name;  // from pci.ids when available
  // What `pciconf -lv` shows besides (read with libpci; empty where unknown):
  std::string subsystem_vendor_id, subsystem_device_id;  // "card=" in pciconf
  std::string subsystem_name;                            // pci.ids' name of the subsystem
  std::string class_id;                                  // "0200": base class and subclass
  std::string class_name;                                // "Ethernet controller"
  std::string revision;                                  // "01"
  Measured<PciLinkState> link;                           // absent: not PCI Express
  Measured<PciInterruptCap> msi, msix;  // absent: the function has no such capability
};

struct NicFacts {
  std::string interface;  // "eth0", "lo", "veth-h1"
  bool loopback = false;  // true: there is no NIC; the fields below are kAbsent
  Measured<std::string> driver, driver_version, firmware_version, bus_info;
  Measured<PciIdentity> pci;
  Measured<uint64_t> speed_mbps;  // negotiated link speed
  Measured<std::string> duplex;   // "full" / "half"
  Measured<bool> autoneg;
  Measured<uint32_t> mtu;
  Measured<std::vector<OffloadState>> offloads;
  Measured<RingSizes> rings;
  Measured<Coalescing> coalescing;
  Measured<ChannelCounts> channels;
  Measured<std::string> irq_mode;  // "MSI-X", "MSI", "INTx"
  Measured<std::vector<IrqVector>> irq_vectors;
  Measured<std::map<std::string, uint64_t>> counters;      // /sys/class/net/IF/statistics
  Measured<std::map<std::string, uint64_t>> driver_stats;  // ethtool -S, when the data started
  // ethtool -S again when the test ended: with driver_stats, the driver's counters that moved
  // during the test (ring misses, pause frames, per-queue packets; analysis/driver_counters.h).
  // Unknown in records from before this field, and where driver_stats is.
  Measured<std::map<std::string, uint64_t>> driver_stats_after;
  Measured<Qdisc> qdisc;  // root qdisc on the interface
  // The PCI function's NUMA node (device/numa_node) and the CPUs local to it (local_cpulist,
  // "0-7,16-23"). numa_node is unknown when the kernel says -1: one node, or firmware (a VM's)
  // that does not tell.
  Measured<int> numa_node;
  Measured<std::string> local_cpus;
  // Flow control (ETHTOOL_GPAUSEPARAM, `ethtool -a`); unknown in records from before this field.
  Measured<PauseSettings> pause;
};

}  // namespace nicbench::record
