#include "diagnosis/saturation.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include <fmt/format.h>

namespace nicbench::diagnosis {

CoreSaturation CoreSaturationAt(const RunView& view, const End& end, const Thresholds& t) {
  if (end.record == nullptr) return {};
  return analysis::SaturatedCore(view.run(), *end.record,
                                 {t.core_busy_percent, t.saturated_interval_fraction});
}

bool Saturated(const CoreSaturation& cpu, const Thresholds& t) {
  return cpu.samples > 0 && cpu.core >= 0 &&
         cpu.saturated > t.saturated_interval_fraction * cpu.samples;
}

std::string DominantKind(const CoreSaturation& cpu) {
  std::pair<double, const char*> kinds[] = {
      {cpu.user, "user time (copying data in nicbench or another program)"},
      {cpu.system, "system time (kernel work in a process's context: socket calls, copies)"},
      {cpu.irq, "hard interrupts"},
      {cpu.softirq, "softirq (NET_RX/NET_TX packet processing)"},
      {cpu.steal, "steal (the hypervisor ran another guest)"}};
  return std::max_element(std::begin(kinds), std::end(kinds))->second;
}

std::string CoreText(const CoreSaturation& cpu) {
  return fmt::format(
      "cpu{} {:.0f}% busy: user {:.0f}%, system {:.0f}%, irq {:.0f}%, softirq "
      "{:.0f}%, steal {:.0f}%",
      cpu.core, cpu.busy, cpu.user, cpu.system, cpu.irq, cpu.softirq, cpu.steal);
}

}  // namespace nicbench::diagnosis
