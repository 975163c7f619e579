#include "probes/pci_config.h"

namespace nicbench::probes {

double PcieSpeedGts(unsigned code) {
  static constexpr double kSpeeds[] = {0, 2.5, 5, 8, 16, 32, 64};
  return code < std::size(kSpeeds) ? kSpeeds[code] : 0;
}

record::PciInterruptCap DecodeMsiControl(unsigned control) {
  record::PciInterruptCap cap;
  cap.messages = 1u << ((control >> 1) & 0x7);  // Multiple Message Capable, log2
  cap.enabled = (control & 0x1) != 0;
  cap.enabled_messages = cap.enabled ? 1u << ((control >> 4) & 0x7) : 0;  // Multiple Message Enable
  return cap;
}

record::PciInterruptCap DecodeMsixControl(unsigned control) {
  record::PciInterruptCap cap;
  cap.messages = (control & 0x7ff) + 1;  // Table Size, N-1 encoded
  cap.enabled = (control & 0x8000) != 0;
  cap.enabled_messages = cap.enabled ? cap.messages : 0;
  return cap;
}

}  // namespace nicbench::probes
