// Shared by far_capture.cc (the marker, the Linux tree) and far_capture_freebsd.cc.
#pragma once

#include <optional>
#include <string>

#include "base/result.h"
#include "probes/far_capture.h"

namespace nicbench::probes::far {

struct Marker {
  std::string os, interface;
  double seconds = 0;  // 0 when the marker does not say
};

// The whole content of a file, nullopt when it cannot be read.
std::optional<std::string> ReadText(const std::string& path);

Result<FarCapture> ReadLinux(const std::string& dir, const Marker& marker);
Result<FarCapture> ReadFreebsd(const std::string& dir, const Marker& marker);

}  // namespace nicbench::probes::far
