// The -F lines of the summary: per end that used a file, what the file calls moved and the
// disk's own rate (bytes over the time inside those calls), beside the network's.
#include <algorithm>

#include <fmt/format.h>

#include "base/units.h"

#include "record/json.h"
#include "report/text_lines.h"
#include "report/text_report.h"

namespace nicbench::report {
namespace text {

std::string FormatByteRate(double bytes_per_second) {
  // dd's unit (decimal MB/s), so the figure compares with what people measured by hand.
  if (bytes_per_second >= 1e9) return fmt::format("{:.2f} GB/s", bytes_per_second / 1e9);
  if (bytes_per_second >= 1e6) return fmt::format("{:.1f} MB/s", bytes_per_second / 1e6);
  return fmt::format("{:.1f} kB/s", bytes_per_second / 1e3);
}

std::string FileLine(const record::FileRecord& f, const std::string& who) {
  const char* verb = f.write ? "wrote" : "read";
  std::string cache = f.direct_used ? "O_DIRECT, no page cache" : "through the page cache";
  std::string out =
      fmt::format("File ({}): {} {} {}{}", who, verb, FormatBytes(static_cast<double>(f.bytes)),
                  f.path, f.filesystem.empty() ? "" : " (" + f.filesystem + ")");
  if (f.rate_measured && f.call_seconds > 0) {
    out += fmt::format(", {:.3f} s in {} calls{}: the disk {} at {} ({})", f.call_seconds,
                       f.write ? "write" : "read",
                       f.write ? fmt::format(" incl. {:.3f} s fdatasync", f.sync_seconds) : "",
                       f.write ? "writes" : "reads", FormatByteRate(f.BytesPerSecond()), cache);
  } else if (!f.rate_measured) {
    out += ": the disk's own rate not measured";
  }
  if (f.streams > 1) out += fmt::format("; {} streams, each with the file", f.streams);
  out += "\n";
  for (const std::string& note : f.notes) out += "  note: " + note + "\n";
  if (!f.error.empty()) out += "  error: " + f.error + "\n";
  return out;
}

// iperf3's line under each stream of a -F test: how much of the file went over it.
std::string SentOfFile(const record::RunRecord& run, const record::FileRecord& f) {
  std::string out;
  const uint64_t size = f.write ? f.bytes / std::max(f.streams, 1) : f.size_at_open;
  for (const record::StreamTotals& s : run.streams) {
    const uint64_t sent = s.sender ? s.bytes_sent : s.bytes_received;
    out += fmt::format("        Sent {} / {} ({}%) of {}\n", FormatBytes(static_cast<double>(sent)),
                       FormatBytes(static_cast<double>(size)), size == 0 ? 0 : sent * 100 / size,
                       f.path);
  }
  return out;
}

std::string FileLines(const record::RunRecord& run) {
  std::string out;
  if (run.local.file) {
    out += SentOfFile(run, *run.local.file);
    out += FileLine(*run.local.file, std::string("local ") + record::RoleName(run.local.role));
  }
  if (run.remote.known() && run.remote.value().file) {
    out += FileLine(*run.remote.value().file,
                    std::string("remote ") + record::RoleName(run.remote.value().role));
  }
  return out;
}

}  // namespace text
}  // namespace nicbench::report
