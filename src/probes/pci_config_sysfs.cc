// FillPciDetails without libpci: the static build (Debian 12's libpci-dev ships no libpci.a).
// The identity comes from sysfs's attribute files, the link from its *_link_* attributes; the
// MSI and MSI-X capabilities would need the configuration space parsed by hand, so they are
// unknown with the reason.
#include "probes/pci_config.h"

#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

std::string Attribute(FileSource& files, const std::string& dir, const char* name, size_t keep) {
  auto text = files.ReadTrimmed(dir + "/" + name);
  if (!text) return "";
  std::string value = *text;
  if (value.rfind("0x", 0) == 0) value.erase(0, 2);
  return value.size() > keep ? value.substr(0, keep) : value;
}

// "8.0 GT/s PCIe" -> 8.
double Speed(FileSource& files, const std::string& path) {
  auto text = files.ReadTrimmed(path);
  return text ? std::strtod(text->c_str(), nullptr) : 0;
}

}  // namespace

bool HaveLibpci() { return false; }

void FillPciDetails(FileSource& files, const std::string& address, record::PciIdentity& pci) {
  const std::string dir = "/sys/bus/pci/devices/" + address;
  pci.subsystem_vendor_id = Attribute(files, dir, "subsystem_vendor", 4);
  pci.subsystem_device_id = Attribute(files, dir, "subsystem_device", 4);
  pci.class_id = Attribute(files, dir, "class", 4);
  pci.revision = Attribute(files, dir, "revision", 2);
  auto width = files.ReadTrimmed(dir + "/current_link_width");
  if (width) {
    record::PciLinkState link;
    link.current = {Speed(files, dir + "/current_link_speed"),
                    static_cast<uint32_t>(scan::ToU64(*width).value_or(0))};
    auto max_width = files.ReadTrimmed(dir + "/max_link_width");
    link.max = {Speed(files, dir + "/max_link_speed"),
                static_cast<uint32_t>(max_width ? scan::ToU64(*max_width).value_or(0) : 0)};
    pci.link = link;
  } else {
    pci.link = record::Measured<record::PciLinkState>::Unknown(record::Missing::kAbsent,
                                                               "not PCI Express");
  }
  const char* why = "this static build has no libpci (Debian 12 ships no libpci.a)";
  pci.msi = pci.msix =
      record::Measured<record::PciInterruptCap>::Unknown(record::Missing::kNotSupported, why);
}

}  // namespace nicbench::probes
