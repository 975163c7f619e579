#include "job/monitor_series.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "base/units.h"
#include "probes/host_snapshot.h"

namespace nicbench::job {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProcFiles[] = {"/proc/stat",     "/proc/interrupts",
                                      "/proc/softirqs", "/proc/net/softnet_stat",
                                      "/proc/net/snmp", "/proc/net/netstat"};

Status WriteText(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return Fail(fmt::format("{}: {}", path.parent_path().string(), ec.message()));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Fail(fmt::format("{}: cannot write", path.string()));
  return Ok();
}

// Copies `path` (as on a live system) from `files` under `root`; a file the source lacks is
// left out, as a capture leaves it out.
Status Copy(probes::FileSource& files, const fs::path& root, const std::string& path,
            std::string& buffer) {
  if (!files.ReadInto(path, buffer)) return Ok();
  return WriteText(root / path.substr(1), buffer);
}

Result<double> ReadTime(const fs::path& dir) {
  std::ifstream in(dir / "time");
  std::string text;
  std::getline(in, text);
  auto t = ParseSeconds(text);
  if (!t) return Fail(fmt::format("{}/time: {}", dir.string(), t.error().message));
  return *t;
}

}  // namespace

LinkState ReadLinkState(probes::FileSource& files, const std::string& iface) {
  LinkState link;
  if (iface.empty() || iface == "lo") return link;
  const std::string base = "/sys/class/net/" + iface + "/";
  if (auto carrier = files.ReadTrimmed(base + "carrier")) {
    if (*carrier == "0" || *carrier == "1") link.carrier = *carrier == "1";
  }
  if (auto speed = files.ReadTrimmed(base + "speed")) {
    try {
      link.speed_mbps = std::stoll(*speed);
    } catch (const std::exception&) {
      link.speed_mbps.reset();  // not a number: unknown
    }
  }
  return link;
}

Status StartSeries(const std::string& dir, const std::string& iface) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    return Fail(fmt::format("--record {}: not empty (a series needs a directory of its own)", dir));
  }
  if (auto s = WriteText(fs::path(dir) / "interface", iface + "\n"); !s) {
    return Fail("--record " + s.error().message);
  }
  return Ok();
}

Status WriteSeriesSample(probes::FileSource& files, const std::string& dir, size_t index,
                         const std::string& iface, double at_unix) {
  const fs::path root = fs::path(dir) / fmt::format("{:06}", index);
  std::string buffer;
  for (const char* path : kProcFiles) {
    if (auto s = Copy(files, root, path, buffer); !s) return s;
  }
  if (!iface.empty() && iface != "lo") {
    const std::string base = "/sys/class/net/" + iface + "/";
    for (const char* name : {"carrier", "speed", "operstate"}) {
      if (auto s = Copy(files, root, base + name, buffer); !s) return s;
    }
    for (size_t i = 0; i < probes::kNicCounterCount; ++i) {
      const std::string path = base + "statistics/" + probes::kNicCounterNames[i];
      if (auto s = Copy(files, root, path, buffer); !s) return s;
    }
  }
  return WriteText(root / "time", fmt::format("{:.3f}\n", at_unix));
}

Result<Series> ReadSeries(const std::string& dir) {
  Series series;
  std::ifstream in(fs::path(dir) / "interface");
  if (!in) return Fail(fmt::format("--replay {}: no series there (no file 'interface')", dir));
  std::getline(in, series.iface);
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && !name.empty() &&
        std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      names.push_back(name);
  }
  if (ec) return Fail(fmt::format("--replay {}: {}", dir, ec.message()));
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const fs::path path = fs::path(dir) / name;
    auto t = ReadTime(path);
    if (!t) return Fail("--replay " + t.error().message);
    series.samples.push_back(SeriesEntry{path.string(), *t});
  }
  if (series.samples.size() < 2) {
    return Fail(fmt::format("--replay {}: {} samples; a series needs at least two", dir,
                            series.samples.size()));
  }
  return series;
}

}  // namespace nicbench::job
