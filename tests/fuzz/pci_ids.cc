// The pci.ids name lookup (probes/nic_internal.h LookupPciNames): the file is read from the
// captured tree of `--root DIR` when there is one, so it can hold anything. The ids asked for
// are the first bytes of the input, the rest is the file.
#include <cstdio>
#include <string>

#include "fuzz_input.h"
#include "probes/nic_internal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  nicbench::record::PciIdentity identity;
  char id[8];
  std::snprintf(id, sizeof id, "%02x%02x", data[0], data[1]);
  identity.vendor_id = id;
  std::snprintf(id, sizeof id, "%02x%02x", data[2], data[3]);
  identity.device_id = id;
  nicbench::probes::internal::LookupPciNames(nicbench::fuzz::Text(data + 4, size - 4), identity);
  return 0;
}
