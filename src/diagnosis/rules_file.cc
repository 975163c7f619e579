// -F: is it the disk or the network? The file calls of the end that read (or wrote) the file
// were timed, so the disk's own rate (bytes over the time inside those calls) stands beside
// the network's rate outside them; the slower one limits a file copy.
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "base/units.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

std::string ByteRate(double bytes_per_second) {
  if (bytes_per_second >= 1e9) return fmt::format("{:.2f} GB/s", bytes_per_second / 1e9);
  return fmt::format("{:.1f} MB/s", bytes_per_second / 1e6);
}

// The flow that read the end's file (it sends) or wrote it (it receives).
const Flow* FlowOfFile(const RunView& view, const End& end, const record::FileRecord& file) {
  for (const Flow& flow : view.flows()) {
    if ((file.write ? flow.receiver : flow.sender) == &end) return &flow;
  }
  return nullptr;
}

std::optional<record::Finding> DiskOrNetwork(const RunView& view, const End& end,
                                             const record::FileRecord& file) {
  const Flow* flow = FlowOfFile(view, end, file);
  if (flow == nullptr || !file.rate_measured || file.call_seconds <= 0 || file.bytes == 0) {
    return std::nullopt;
  }
  const double omit = std::chrono::duration<double>(view.run().spec.omit).count();
  const double seconds = flow->seconds + omit;
  if (seconds <= 0 || flow->bits_per_second <= 0) return std::nullopt;
  // Streams run side by side: each one's share of the time is its own calls over the test.
  const int streams = std::max(file.streams, 1);
  const double share = std::min(file.call_seconds / streams / seconds, 0.99);
  const double disk = static_cast<double>(file.bytes) / file.call_seconds * streams;
  const double network_alone = flow->bits_per_second / 8.0 / (1.0 - share);
  const bool disk_limits = disk < network_alone;
  const char* verb = file.write ? "writes" : "reads";
  const std::string where = end.name;
  record::Finding f = MakeFinding(
      disk_limits ? "disk-limits-file-transfer" : "network-limits-file-transfer",
      disk_limits ? Severity::kWarning : Severity::kInfo,
      disk_limits
          ? fmt::format("The disk limits this file transfer: it {} at {}, the network carried "
                        "{} outside the file calls",
                        verb, ByteRate(disk), FormatBitRate(network_alone * 8))
          : fmt::format("The network, not the disk, limits this file transfer: the disk {} at "
                        "{}, the network carried {}",
                        verb, ByteRate(disk), FormatBitRate(flow->bits_per_second)));
  f.evidence.push_back(
      fmt::format("{}: {} {} {} in {:.3f} s of {}(2) calls{} = {}", where,
                  file.write ? "wrote" : "read", FormatBytes(static_cast<double>(file.bytes)),
                  file.path, file.call_seconds, file.write ? "write" : "read",
                  file.write ? fmt::format(" (incl. {:.3f} s fdatasync)", file.sync_seconds) : "",
                  ByteRate(disk)));
  f.evidence.push_back(fmt::format(
      "the file calls took {:.0f}% of the {:.2f} s transfer; goodput {} ({}), {} outside them",
      share * 100, seconds, FormatBitRate(flow->bits_per_second),
      ByteRate(flow->bits_per_second / 8), FormatBitRate(network_alone * 8)));
  if (!file.direct_used) {
    f.evidence.emplace_back(file.filesystem == "tmpfs"
                                ? "tmpfs: the file is memory; this is the page cache's rate"
                                : "through the page cache: data read before may come from memory "
                                  "(--direct measures the disk itself)");
  }
  if (disk_limits) {
    f.meaning = fmt::format(
        "The disk {} at {}, the network carried {}: the disk limits a file "
        "copy to ~{}.",
        verb, ByteRate(disk), FormatBitRate(network_alone * 8), ByteRate(disk));
    f.next_step =
        "Measure the disk alone (`nicbench disk FILE --direct`); a faster disk, a "
        "RAID or an SSD cache, not the network, would speed up copies.";
  } else {
    f.meaning = fmt::format(
        "Reading and writing the file costs little beside the transfer: a "
        "file copy over this path tops out near {}.",
        ByteRate(flow->bits_per_second / 8));
    f.next_step = "Look at the network findings; the disk keeps up.";
  }
  return f;
}

}  // namespace

Findings FileTransferLimit(const RunView& view, const Thresholds&) {
  Findings out;
  for (const End* end : view.ends()) {
    if (end->record == nullptr || !end->record->file) continue;
    if (auto f = DiskOrNetwork(view, *end, *end->record->file)) out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace nicbench::diagnosis
