// The PCI configuration reader (probes/pci_config.h FillPciDetails): the configuration space of
// a captured tree (`--root DIR`) is whatever file the tree holds. The input is that file,
// written under a temporary tree with the sysfs attributes a kernel would show beside it, then
// read through libpci (or, in a build without libpci, the sysfs attributes) as `inspect` reads
// it. Up to 4096 bytes: a PCI Express function's extended configuration space.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_input.h"
#include "probes/file_source.h"
#include "probes/pci_config.h"

namespace {

constexpr char kAddress[] = "0000:00:03.0";
constexpr const char* kFiles[] = {"config",   "vendor",           "device",          "class",
                                  "revision", "subsystem_vendor", "subsystem_device"};
char tree[] = "/tmp/nicbench-fuzz-pci-XXXXXX";

std::string DeviceDir() { return std::string(tree) + "/sys/bus/pci/devices/" + kAddress; }

// Removes the tree when libFuzzer exits normally (a crash leaves it for the post-mortem).
void RemoveTree() {
  for (const char* file : kFiles) std::remove((DeviceDir() + "/" + file).c_str());
  std::string path = DeviceDir();
  while (path.size() > sizeof tree - 1) {
    ::rmdir(path.c_str());
    path.resize(path.rfind('/'));
  }
  ::rmdir(tree);
}

void Write(const std::string& path, const void* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  NICBENCH_FUZZ_CHECK(f != nullptr);
  NICBENCH_FUZZ_CHECK(std::fwrite(data, 1, size, f) == size);
  std::fclose(f);
}

void WriteHex(const std::string& path, unsigned value, int digits) {
  char text[16];
  const int n = std::snprintf(text, sizeof text, "0x%0*x\n", digits, value);
  Write(path, text, static_cast<size_t>(n));
}

// The tree, made once per process: ROOT/sys/bus/pci/devices/0000:00:03.0/.
const std::string& Root() {
  static const std::string root = [] {
    NICBENCH_FUZZ_CHECK(::mkdtemp(tree) != nullptr);
    std::atexit(RemoveTree);
    std::string path = tree;
    for (const char* part : {"/sys", "/bus", "/pci", "/devices", "/0000:00:03.0"}) {
      path += part;
      NICBENCH_FUZZ_CHECK(::mkdir(path.c_str(), 0700) == 0);
    }
    return std::string(tree);
  }();
  return root;
}

unsigned Bytes(const uint8_t* data, size_t size, size_t at, int count) {
  unsigned v = 0;
  for (int i = 0; i < count; ++i) {
    if (at + i < size) v |= unsigned{data[at + i]} << (8 * i);
  }
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string& root = Root();
  const std::string dir = DeviceDir();
  Write(dir + "/config", data, size);
  WriteHex(dir + "/vendor", Bytes(data, size, 0, 2), 4);
  WriteHex(dir + "/device", Bytes(data, size, 2, 2), 4);
  WriteHex(dir + "/class", Bytes(data, size, 9, 3), 6);
  WriteHex(dir + "/revision", Bytes(data, size, 8, 1), 2);
  WriteHex(dir + "/subsystem_vendor", Bytes(data, size, 0x2c, 2), 4);
  WriteHex(dir + "/subsystem_device", Bytes(data, size, 0x2e, 2), 4);
  nicbench::probes::DirFileSource files(root);
  nicbench::record::PciIdentity pci;
  nicbench::probes::FillPciDetails(files, kAddress, pci);
  return 0;
}
