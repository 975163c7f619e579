// The rest of a NIC's PCI identity, as `pciconf -lv` and `lspci -vv` show it: subsystem, class,
// revision, the PCI Express link (current and capable speed and width) and the MSI and MSI-X
// capabilities. Read with pciutils' libpci from the sysfs tree under a FileSource's directory
// (live "/" or a captured tree), names from pci.ids; a static build without libpci.a reads the
// identity from sysfs attributes and says why the capabilities are unknown. Thread-compatible
// (one call builds and frees its own libpci context).
#pragma once

#include <string>

#include "probes/file_source.h"
#include "record/facts.h"

namespace nicbench::probes {

// Fills everything but vendor_id/device_id (the caller has them) for the function at PCI
// `address` ("0000:00:03.0"). What cannot be read is unknown with its reason: the
// configuration space past 64 bytes (where the capabilities live) needs root.
void FillPciDetails(FileSource& files, const std::string& address, record::PciIdentity& pci);

// True when this binary reads PCI with libpci (false: the sysfs fallback of a static build).
bool HaveLibpci();

// Pure decoders of the capability registers (tests feed them the words a real device has).
// Link Capabilities / Link Status speed field (1 = 2.5 GT/s ... 6 = 64 GT/s; 0 when unknown).
double PcieSpeedGts(unsigned code);
// MSI Message Control -> messages supported, enabled, enabled messages.
record::PciInterruptCap DecodeMsiControl(unsigned control);
// MSI-X Message Control -> table size, enabled.
record::PciInterruptCap DecodeMsixControl(unsigned control);

}  // namespace nicbench::probes
