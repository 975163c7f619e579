// FillPciDetails with pciutils' libpci (built when libpci is found; CMakeLists.txt).
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <stdexcept>

extern "C" {
#include <pci/pci.h>
}

#include <fmt/format.h>

#include "probes/pci_config.h"

namespace nicbench::probes {
namespace {

using record::Measured;
using record::Missing;

// libpci's error callback must not return (pci.h: "Write error message and quit"); it is
// called only for what the checks before pci_init rule out (no sysfs tree), so the rare rest
// is thrown to FillPciDetails, which turns it into an unknown with the message.
// GNU-style, as pci.h spells the callback's type: clang makes it part of the function's type.
__attribute__((noreturn)) void ThrowError(char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  throw std::runtime_error(text);
}

void Quiet(char*, ...) {}

struct AccessDeleter {
  void operator()(pci_access* a) const { pci_cleanup(a); }
};

std::string Hex(unsigned value, int digits) { return fmt::format("{:0{}x}", value, digits); }

std::string Name(pci_access* a, int flags, unsigned v1, unsigned v2, unsigned v3, unsigned v4) {
  char buf[256];
  const char* name = pci_lookup_name(
      a, buf, sizeof buf, flags | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB, v1, v2, v3, v4);
  return name != nullptr ? name : "";
}

void FillNames(pci_access* a, pci_dev* d, record::PciIdentity& pci) {
  pci.class_id = Hex(d->device_class, 4);
  pci.class_name = Name(a, PCI_LOOKUP_CLASS, d->device_class, 0, 0, 0);
  pci.revision = Hex(d->rev_id, 2);
  if (d->known_fields & PCI_FILL_SUBSYS) {
    pci.subsystem_vendor_id = Hex(d->subsys_vendor_id, 4);
    pci.subsystem_device_id = Hex(d->subsys_id, 4);
    pci.subsystem_name = Name(a, PCI_LOOKUP_SUBSYSTEM | PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE,
                              d->vendor_id, d->device_id, d->subsys_vendor_id, d->subsys_id);
  }
}

void FillCapabilities(pci_dev* d, record::PciIdentity& pci) {
  // The capability list lives past the first 64 bytes, which sysfs shows only to root.
  u8 probe[4];
  if (!pci_read_block(d, 0x40, probe, sizeof probe)) {
    const char* why = "the configuration space past 64 bytes needs root";
    pci.link = Measured<record::PciLinkState>::Unknown(Missing::kPermissionDenied, why);
    pci.msi = pci.msix =
        Measured<record::PciInterruptCap>::Unknown(Missing::kPermissionDenied, why);
    return;
  }
  if (pci_cap* exp = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL)) {
    const u32 cap = pci_read_long(d, exp->addr + PCI_EXP_LNKCAP);
    const u16 status = pci_read_word(d, exp->addr + PCI_EXP_LNKSTA);
    record::PciLinkState link;
    link.max = {PcieSpeedGts(cap & PCI_EXP_LNKCAP_SPEED), (cap & PCI_EXP_LNKCAP_WIDTH) >> 4};
    link.current = {PcieSpeedGts(status & PCI_EXP_LNKSTA_SPEED),
                    static_cast<uint32_t>((status & PCI_EXP_LNKSTA_WIDTH) >> 4)};
    pci.link = link;
  } else {
    pci.link = Measured<record::PciLinkState>::Unknown(Missing::kAbsent, "not PCI Express");
  }
  if (pci_cap* msi = pci_find_cap(d, PCI_CAP_ID_MSI, PCI_CAP_NORMAL)) {
    pci.msi = DecodeMsiControl(pci_read_word(d, msi->addr + PCI_MSI_FLAGS));
  } else {
    pci.msi = Measured<record::PciInterruptCap>::Unknown(Missing::kAbsent, "no MSI capability");
  }
  if (pci_cap* msix = pci_find_cap(d, PCI_CAP_ID_MSIX, PCI_CAP_NORMAL)) {
    pci.msix = DecodeMsixControl(pci_read_word(d, msix->addr + 2));  // Message Control
  } else {
    pci.msix = Measured<record::PciInterruptCap>::Unknown(Missing::kAbsent, "no MSI-X capability");
  }
}

void AllUnknown(record::PciIdentity& pci, Missing why, const std::string& detail) {
  pci.link = Measured<record::PciLinkState>::Unknown(why, detail);
  pci.msi = pci.msix = Measured<record::PciInterruptCap>::Unknown(why, detail);
}

}  // namespace

bool HaveLibpci() { return true; }

void FillPciDetails(FileSource& files, const std::string& address, record::PciIdentity& pci) {
  const std::optional<std::string> root = files.DirectoryRoot();
  unsigned domain = 0, bus = 0, slot = 0, func = 0;
  if (!root || std::sscanf(address.c_str(), "%x:%x:%x.%x", &domain, &bus, &slot, &func) != 4) {
    AllUnknown(pci, Missing::kNotSupported, "no sysfs tree to read " + address + " from");
    return;
  }
  const std::string dir = "/sys/bus/pci/devices/" + address;
  std::string probe;
  for (const char* file : {"/config", "/vendor", "/device", "/class"}) {
    if (auto read = files.ReadInto(dir + file, probe); !read) {
      AllUnknown(pci, MissingFromErrno(read.error().sys_errno), read.error().ToString());
      return;
    }
  }
  try {
    std::unique_ptr<pci_access, AccessDeleter> a(pci_alloc());
    a->error = ThrowError;
    a->warning = Quiet;
    a->debug = Quiet;
    a->method = PCI_ACCESS_SYS_BUS_PCI;
    std::string sysfs = (*root == "/" ? std::string() : *root) + "/sys/bus/pci";
    pci_set_param(a.get(), const_cast<char*>("sysfs.path"), sysfs.data());
    pci_init(a.get());
    pci_dev* d = pci_get_dev(a.get(), static_cast<int>(domain), static_cast<int>(bus),
                             static_cast<int>(slot), static_cast<int>(func));
    if (d == nullptr) throw std::runtime_error("libpci: no device " + address);
    pci_fill_info(
        d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CLASS_EXT | PCI_FILL_SUBSYS | PCI_FILL_CAPS);
    FillNames(a.get(), d, pci);
    FillCapabilities(d, pci);
    pci_free_dev(d);
  } catch (const std::exception& e) {
    AllUnknown(pci, Missing::kError, e.what());
  }
}

}  // namespace nicbench::probes
