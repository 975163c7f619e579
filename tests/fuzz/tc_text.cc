// The `tc -s qdisc` and `tc -s class` texts of a captured tree or a far end's collect.sh capture
// (probes/tc_text.h), which arrive from another host. The input is the qdisc text, a NUL, then
// the class text.
#include <string>

#include "fuzz_input.h"
#include "probes/tc_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = nicbench::fuzz::Text(data, size);
  const size_t nul = text.find('\0');
  const std::string_view qdiscs = text.substr(0, nul);
  const std::string_view classes = nul == std::string_view::npos ? "" : text.substr(nul + 1);
  auto qdisc = nicbench::probes::ParseTcQdisc(qdiscs, classes);
  // What is read back renders again (the capture's writer uses the same functions).
  if (qdisc) (void)nicbench::probes::RenderTcQdisc(*qdisc);
  return 0;
}
