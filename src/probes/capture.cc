#include "probes/capture.h"
#include <cctype>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "probes/collect_facts.h"
#include "probes/file_source.h"

namespace nicbench::probes {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProcFiles[] = {
    "proc/cpuinfo",
    "proc/stat",
    "proc/interrupts",
    "proc/softirqs",
    "proc/net/snmp",
    "proc/net/netstat",
    "proc/net/softnet_stat",
    "proc/sys/kernel/osrelease",
    "proc/uptime",  // the seconds between the two samples of `nicbench collect`
    "proc/sys/kernel/hostname",
    "sys/devices/system/cpu/online",
};

// Never read: memory-mapped BARs (resource0..), the option ROM, VPD (slow or hanging on some
// devices), and writes-only triggers.
bool Skipped(const std::string& name) {
  return name.starts_with("resource") || name == "rom" || name == "vpd" || name == "remove" ||
         name == "rescan" || name == "reset" || name == "uevent";
}

class Copier {
 public:
  Copier(fs::path from, fs::path to) : from_(std::move(from)), to_(std::move(to)) {}

  // Copies one file's content (sysfs files report 4096 bytes; the read tells the truth).
  void File(const std::string& rel) {
    std::ifstream in(from_ / rel, std::ios::binary);
    if (!in) return;
    std::stringstream content;
    content << in.rdbuf();
    if (in.bad()) return;
    std::error_code ec;
    fs::create_directories((to_ / rel).parent_path(), ec);
    std::ofstream out(to_ / rel, std::ios::binary);
    out << content.str();
  }

  // The link as stored; its target directory exists in the copy (empty if nothing else is).
  void Link(const std::string& rel) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(from_ / rel, ec);
    if (ec) return;
    fs::create_directories((to_ / rel).parent_path(), ec);
    fs::remove(to_ / rel, ec);
    fs::create_symlink(target, to_ / rel, ec);
    fs::create_directories((to_ / rel).parent_path() / target, ec);
  }

  // Every readable regular file directly in `rel` (and its subdirectory `sub`, if named).
  void Dir(const std::string& rel, const char* sub = nullptr) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(from_ / rel, ec)) {
      const std::string name = entry.path().filename();
      if (Skipped(name)) continue;
      if (entry.is_symlink(ec)) continue;
      if (entry.is_regular_file(ec)) File(rel + "/" + name);
      if (sub != nullptr && name == sub && entry.is_directory(ec)) Dir(rel + "/" + name);
    }
  }

  const fs::path& from() const { return from_; }

 private:
  fs::path from_, to_;
};

bool IsPciAddress(const std::string& part) {
  return part.size() == 12 && part[4] == ':' && part[7] == ':' && part[10] == '.';
}

// /sys/class/net/IF -> ../../devices/.../IF: the interface's directory, its device and driver
// links, and every PCI function on the way (the last one owns the interrupts).
void CaptureInterface(Copier& copy, const std::string& iface) {
  const std::string link = "sys/class/net/" + iface;
  copy.Link(link);
  std::error_code ec;
  const fs::path real = fs::canonical(copy.from() / link, ec);
  if (ec) return;
  const fs::path rel = real.lexically_relative(copy.from());
  copy.Dir(rel.string(), "statistics");
  copy.Link(rel.string() + "/device");
  fs::path walked;
  for (const fs::path& part : rel) {
    walked /= part;
    if (!IsPciAddress(part.string())) continue;
    copy.Dir(walked.string(), "msi_irqs");
    copy.Link(walked.string() + "/driver");
    copy.Link("sys/bus/pci/devices/" + part.string());
  }
  const fs::path device = fs::canonical(real / "device", ec);
  if (!ec) copy.Link((device.lexically_relative(copy.from()) / "driver").string());
}

// What files cannot hold: from the ioctls and netlink on the live machine; a captured source's
// own texts otherwise, as they are (a fact they lack stays out of the copy too).
Status CaptureNicTexts(Copier& copy, const std::string& dir, const std::string& iface) {
  DirFileSource source(copy.from().string());
  if (!source.IsLive()) {
    copy.Dir("ethtool/" + iface);
    copy.Dir("tc/" + iface);
    return Ok();
  }
  auto nic = CollectNicFacts(iface, source);
  if (!nic) return Ok();  // gone since it was listed: its files say so already
  return WriteNicTexts(dir, *nic);
}

// Each CPU's cpufreq files (the directory is a link to its policy; the copy holds plain files).
// A missing file (a VM has no cpufreq) is skipped by the copier.
void CaptureCpuFrequencies(Copier& copy, const std::string& source_root) {
  std::error_code ec;
  for (const auto& entry :
       fs::directory_iterator(fs::path(source_root) / "sys/devices/system/cpu", ec)) {
    const std::string name = entry.path().filename();
    if (!name.starts_with("cpu") || name.size() < 4 || !std::isdigit(name[3])) continue;
    for (const char* file : {"scaling_governor", "scaling_driver", "scaling_cur_freq",
                             "cpuinfo_min_freq", "cpuinfo_max_freq"}) {
      copy.File("sys/devices/system/cpu/" + name + "/cpufreq/" + file);
    }
  }
}

}  // namespace

Status CaptureTree(const std::string& dir, const std::vector<std::string>& interfaces,
                   const std::string& source_root) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Fail("--capture: cannot create " + dir + ": " + ec.message());
  Copier copy(source_root, dir);
  for (const char* file : kProcFiles) copy.File(file);
  std::vector<std::string> names = interfaces;
  if (names.empty()) {
    for (const auto& entry : fs::directory_iterator(fs::path(source_root) / "sys/class/net", ec)) {
      names.push_back(entry.path().filename());
    }
  }
  for (const std::string& iface : names) {
    CaptureInterface(copy, iface);
    if (auto status = CaptureNicTexts(copy, dir, iface); !status) return status;
  }
  // Which CPUs each interrupt line may run on (the NIC's vectors in inspect).
  for (const auto& entry : fs::directory_iterator(fs::path(source_root) / "proc/irq", ec)) {
    if (entry.is_directory(ec)) {
      copy.File("proc/irq/" + entry.path().filename().string() + "/smp_affinity_list");
      copy.File("proc/irq/" + entry.path().filename().string() + "/effective_affinity_list");
    }
  }
  CaptureCpuFrequencies(copy, source_root);
  if (!fs::exists(fs::path(dir) / "proc/stat")) {
    return Fail("--capture: nothing could be read from " + source_root + "proc");
  }
  return Ok();
}

}  // namespace nicbench::probes
