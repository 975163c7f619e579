// What limited each TCP stream, one line per sending stream (analysis/stream_limits.h).
#include <fmt/format.h>

#include "analysis/stream_limits.h"
#include "report/text_lines.h"

namespace nicbench::report::text {

std::string StreamLimitLines(const record::RunRecord& run) {
  const std::vector<analysis::StreamLimit> limits = analysis::StreamLimits(run);
  if (limits.empty()) return {};
  std::string out = "What limited each TCP stream (its sender's TCP_INFO busy times):\n";
  for (const analysis::StreamLimit& s : limits) {
    out += fmt::format(
        "  [{:>3}] {} sends: {} {:.0f}% of {:.2f} s (busy {:.2f} s: receive window {:.2f} s, send "
        "buffer {:.2f} s, network {:.2f} s; application idle {:.2f} s)\n",
        s.id, s.local_sends ? "local" : "remote", analysis::LimitName(s.limit), s.limit_share * 100,
        s.seconds, s.busy_seconds, s.rwnd_limited_seconds, s.sndbuf_limited_seconds,
        s.network_seconds, s.application_seconds);
  }
  return out;
}

}  // namespace nicbench::report::text
