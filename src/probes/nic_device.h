// Where an interface's device lives in sysfs, and which /proc/interrupts lines are its own.
// Used by the sampler (to mark the NIC's lines and name their queues) and by the NIC facts
// (IRQ mode and vectors, PCI identity). Plain values and pure matching; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "probes/file_source.h"
#include "probes/proc_parsers.h"

namespace nicbench::probes {

struct NicDevice {
  std::string interface;    // "eth0"
  std::string device_name;  // basename of /sys/class/net/IF/device: "0000:03:00.0", "virtio2"
  std::string pci_address;  // the PCI function behind it (a virtio device's parent), or empty
  // /sys/bus/pci/devices/ADDR/msi_irqs: IRQ number -> "msix" or "msi". Empty for INTx,
  // virtual devices and captured trees without it.
  std::map<std::string, std::string> msi_irqs;
};

// Reads the links and msi_irqs of `iface`. Missing pieces stay empty (a veth has no device).
NicDevice LocateNicDevice(FileSource& files, const std::string& iface);

// True for "0000:03:00.0" (domain:bus:slot.function).
bool IsPciAddress(std::string_view text);

// When `line` belongs to the NIC, its queue name: the part after the interface name
// ("eth0-TxRx-3" -> "TxRx-3", "i40e-eth0-TxRx-1" -> "TxRx-1", "virtio2-input.0" -> "input.0"),
// the part before "@pci:" for mlx4/mlx5 ("mlx5_comp2"), or the whole action ("iwlwifi") for a
// line found only by its MSI IRQ number or by the bus address in its chip column
// ("PCI-MSIX-0000:00:03.0"). nullopt when the line is not the NIC's.
std::optional<std::string> MatchNicIrq(const NicDevice& nic, const InterruptLine& line);

}  // namespace nicbench::probes
