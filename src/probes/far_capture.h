// A capture of a far end that runs no nicbench, written by `nicbench collect` (the embedded
// src/cli/collect.sh, or nicbench itself on a Linux host): the host's and the NIC's facts and
// two samples a few seconds apart, read into the EndpointRecord a nicbench peer would have sent,
// so `run HOST --remote-facts DIR` gives a stock iperf3 end its facts and `inspect --root DIR`
// describes it. Layout in collect.sh's header. Not thread-safe with itself (reads files).
#pragma once

#include <string>

#include "base/result.h"
#include "record/run_record.h"

namespace nicbench::probes {

// The marker file at the top of a capture: "nicbench-capture 1", "os Linux|FreeBSD",
// "interface IF", "seconds N" (between the samples, whole seconds).
inline constexpr const char kCaptureMarker[] = "nicbench-capture";

struct FarCapture {
  std::string os;         // "Linux" or "FreeBSD"
  std::string interface;  // the interface that carried the test; "" when the capture names none
  record::EndpointRecord end;  // host, nic and one sample (start 0, end: the seconds between)
};

// Reads `dir`. Errors (each naming the directory): it does not exist or is not a directory;
// it has no marker file (not a capture: `inspect --capture` trees are read with --root alone);
// the marker names another OS or format; the capture names no interface, or the one it names
// has no facts in it. Facts the capture lacks are unknown with the reason, never zero.
Result<FarCapture> ReadFarCapture(const std::string& dir);

// True when `dir` holds a capture marker (so `inspect --root DIR` reads it as one).
bool IsFarCapture(const std::string& dir);

}  // namespace nicbench::probes
