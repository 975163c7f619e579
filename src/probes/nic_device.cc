#include "probes/nic_device.h"

#include <vector>

#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// "eth0" inside "eth0-TxRx-3" or "i40e-eth0-TxRx-1": the queue after "<word>-", or "" when
// the action is exactly the word. Requires a delimiter so "eth1" does not match "eth10-rx-0".
std::optional<std::string> QueueAfter(std::string_view action, std::string_view word) {
  if (word.empty()) return std::nullopt;
  for (size_t at = action.find(word); at != std::string_view::npos;
       at = action.find(word, at + 1)) {
    bool starts_ok = at == 0 || action[at - 1] == '-';
    size_t end = at + word.size();
    if (!starts_ok) continue;
    if (end == action.size()) return std::string();
    if (action[end] == '-') return std::string(action.substr(end + 1));
  }
  return std::nullopt;
}

std::optional<std::string> MatchAction(const NicDevice& nic, std::string_view action) {
  if (auto queue = QueueAfter(action, nic.interface)) return queue;
  // virtio names vectors after the virtio device, not the interface: "virtio2-input.0".
  if (!IsPciAddress(nic.device_name)) {
    if (auto queue = QueueAfter(action, nic.device_name)) return queue;
  }
  // mlx4/mlx5 name vectors "<queue>@pci:<address>" (the kernel may cut the name short).
  size_t at = action.find("@pci:");
  if (at != std::string_view::npos && !nic.pci_address.empty() &&
      action.substr(at + 5) == nic.pci_address) {
    return std::string(action.substr(0, at));
  }
  return std::nullopt;
}

}  // namespace

bool IsPciAddress(std::string_view text) {
  // dddd:bb:ss.f with hex digits.
  if (text.size() != 12) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (i == 4 || i == 7) {
      if (c != ':') return false;
    } else if (i == 10) {
      if (c != '.') return false;
    } else if (!hex) {
      return false;
    }
  }
  return true;
}

NicDevice LocateNicDevice(FileSource& files, const std::string& iface) {
  NicDevice nic;
  nic.interface = iface;
  std::string base = "/sys/class/net/" + iface;
  if (auto link = files.ReadLink(base + "/device")) nic.device_name = std::string(BaseName(*link));
  // /sys/class/net/IF links to /sys/devices/.../0000:00:03.0/virtio2/net/IF: the last PCI
  // address on that path is the function that owns the interrupts.
  if (auto link = files.ReadLink(base)) {
    std::string_view rest = *link;
    while (!rest.empty()) {
      size_t slash = rest.find('/');
      std::string_view part = rest.substr(0, slash);
      if (IsPciAddress(part)) nic.pci_address = std::string(part);
      rest.remove_prefix(slash == std::string_view::npos ? rest.size() : slash + 1);
    }
  }
  if (nic.pci_address.empty() && IsPciAddress(nic.device_name)) nic.pci_address = nic.device_name;
  if (nic.pci_address.empty()) return nic;
  std::string msi_dir = "/sys/bus/pci/devices/" + nic.pci_address + "/msi_irqs";
  auto names = files.ListDir(msi_dir);
  if (!names) return nic;
  for (const std::string& irq : *names) {
    auto mode = files.ReadTrimmed(msi_dir + "/" + irq);
    // Before 3.x the entries were directories with a "mode" file inside.
    if (!mode) mode = files.ReadTrimmed(msi_dir + "/" + irq + "/mode");
    nic.msi_irqs[irq] = mode ? *mode : std::string();
  }
  return nic;
}

std::optional<std::string> MatchNicIrq(const NicDevice& nic, const InterruptLine& line) {
  if (!line.numeric) return std::nullopt;
  std::string_view names = line.name;
  while (!names.empty()) {
    size_t comma = names.find(',');
    std::string_view action = scan::Trim(names.substr(0, comma));
    names.remove_prefix(comma == std::string_view::npos ? names.size() : comma + 1);
    if (auto queue = MatchAction(nic, action)) return queue;
  }
  bool by_msi = nic.msi_irqs.count(line.irq) > 0;
  bool by_chip = !nic.pci_address.empty() && line.chip.size() > nic.pci_address.size() &&
                 line.chip.compare(line.chip.size() - nic.pci_address.size(), std::string::npos,
                                   nic.pci_address) == 0;
  if (!by_msi && !by_chip) return std::nullopt;
  // A name the kernel cut short ("mlx4-comp-0@pci:00") still carries the queue before '@'.
  size_t at = line.name.find("@pci:");
  return at == std::string::npos ? line.name : line.name.substr(0, at);
}

}  // namespace nicbench::probes
