#include "cli/default_route.h"

#include <string_view>

#include "probes/text_scan.h"

namespace nicbench::cli {

std::string DefaultRouteInterface(probes::FileSource& files) {
  std::string text;
  if (!files.ReadInto("/proc/net/route", text)) return {};
  std::string_view rest = text;
  probes::scan::NextLine(rest);  // header
  while (!rest.empty()) {
    std::string_view line = probes::scan::NextLine(rest);
    std::string_view iface = probes::scan::NextToken(line);
    if (probes::scan::NextToken(line) == "00000000") return std::string(iface);
  }
  return {};
}

}  // namespace nicbench::cli
