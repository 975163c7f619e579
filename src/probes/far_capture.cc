#include "probes/far_capture.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "probes/collect_facts.h"
#include "probes/far_capture_internal.h"
#include "probes/host_snapshot.h"
#include "probes/text_scan.h"

namespace nicbench::probes {
namespace far {

std::optional<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace far

namespace {

using record::Measured;
using record::Missing;

Result<far::Marker> ReadMarker(const std::string& dir) {
  auto text = far::ReadText(dir + "/" + kCaptureMarker);
  if (!text) {
    return Fail(dir + ": no " + std::string(kCaptureMarker) +
                " file: not a capture of `nicbench collect` (write one with `nicbench collect "
                "--script > collect.sh` and `sh collect.sh -o DIR` on the far end)");
  }
  far::Marker marker;
  std::string_view rest = *text;
  bool format = false;
  while (!rest.empty()) {
    std::string_view line = scan::NextLine(rest);
    std::string_view key = scan::NextToken(line);
    std::string value(scan::Trim(line));
    if (key == kCaptureMarker) format = value == "1";
    if (key == "os") marker.os = value;
    if (key == "interface") marker.interface = value;
    if (key == "seconds") marker.seconds = std::strtod(value.c_str(), nullptr);
  }
  if (!format) return Fail(dir + ": the capture is of a format this nicbench does not read");
  return marker;
}

// The seconds between the samples: /proc/uptime's difference (10 ms steps) when both trees
// hold it, else the marker's whole seconds.
double LinuxSeconds(const std::string& dir, const far::Marker& marker) {
  auto first = far::ReadText(dir + "/proc/uptime");
  auto later = far::ReadText(dir + "/later/proc/uptime");
  if (first && later) {
    const double seconds =
        std::strtod(later->c_str(), nullptr) - std::strtod(first->c_str(), nullptr);
    if (seconds > 0) return seconds;
  }
  return marker.seconds;
}

}  // namespace

namespace far {

Result<FarCapture> ReadLinux(const std::string& dir, const Marker& marker) {
  DirFileSource first(dir), later(dir + "/later");
  FarCapture out{marker.os, marker.interface, {}};
  out.end.host = CollectHostFacts(first);
  auto nic = CollectNicFacts(marker.interface, first);
  if (!nic) return Fail(dir + ": interface '" + marker.interface + "': " + nic.error().ToString());
  // CollectNicFacts read the ethtool and tc texts of the first reading; -S again at the second.
  if (!nic->loopback) nic->driver_stats_after = ReadDriverStats(marker.interface, later);
  out.end.nic = std::move(*nic);
  std::string buffer;
  const NicDevice device = LocateNicDevice(first, marker.interface);
  const std::string counted = out.end.nic.loopback ? std::string() : marker.interface;
  HostSnapshot before = ReadHostSnapshot(first, buffer, counted);
  HostSnapshot after = ReadHostSnapshot(later, buffer, counted);
  record::HostInterval sample = DiffSnapshots(before, after, 0, LinuxSeconds(dir, marker),
                                              out.end.nic.loopback ? nullptr : &device);
  // The snapshots' rusage and threads are this process's, not the far end's.
  sample.process = Measured<record::ProcessUsage>::Unknown(Missing::kNotReported, "a capture");
  sample.run_queue = Measured<record::RunQueueDelay>::Unknown(Missing::kNotReported, "a capture");
  out.end.samples.push_back(std::move(sample));
  return out;
}

}  // namespace far

bool IsFarCapture(const std::string& dir) {
  struct stat st {};
  return ::stat((dir + "/" + kCaptureMarker).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Result<FarCapture> ReadFarCapture(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return FailErrno(dir);
  if (!S_ISDIR(st.st_mode)) {
    return Fail(dir +
                ": not a directory (unpack a tar capture first: mkdir DIR && tar -xf FILE -C DIR)");
  }
  auto marker = ReadMarker(dir);
  if (!marker) return tl::unexpected(marker.error());
  if (marker->interface.empty()) {
    return Fail(dir + ": the capture names no interface (run the script with -i IFACE)");
  }
  if (marker->os == "Linux") return far::ReadLinux(dir, *marker);
  if (marker->os == "FreeBSD") return far::ReadFreebsd(dir, *marker);
  return Fail(dir + ": a capture of '" + marker->os + "', neither Linux nor FreeBSD");
}

}  // namespace nicbench::probes
