// The NIC facts that only the ethtool ioctls and rtnetlink give, kept in a capture as the texts
// `ethtool IF` and `ethtool -i/-k/-g/-c/-l/-S IF` and `tc -s qdisc|class show dev IF` print:
// written by CaptureTree from the facts read live, read back by CollectNicFacts for a captured
// tree. A capture of collect.sh holds the same files, written by ethtool and tc themselves, so one
// reader takes both. Layout under the tree: ethtool/IF/{settings,i,k,g,c,l,S}.txt,
// tc/IF/{qdisc,class}.txt. A fact that could not be read is an empty .txt (what ethtool prints
// then) beside a .err with why: "REASON: detail" as the JSON's unknown member words it when
// nicbench wrote it, ethtool's own message ("netlink error: Operation not supported") when
// collect.sh did.
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "probes/capture.h"
#include "probes/ethtool_text.h"
#include "probes/nic_internal.h"
#include "probes/proc_parsers.h"
#include "probes/tc_text.h"
#include "record/json.h"

namespace nicbench::probes {
namespace {

using record::Measured;
using record::Missing;

std::string EthtoolDir(const std::string& iface) { return "/ethtool/" + iface + "/"; }
std::string TcDir(const std::string& iface) { return "/tc/" + iface + "/"; }

bool WriteFile(const std::string& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

std::optional<std::string> Text(FileSource& files, const std::string& path) {
  std::string out;
  if (!files.ReadInto(path, out)) return std::nullopt;
  return out;
}

// The reason in `text`: nicbench's own wording, or a tool's message, whose errno text tells a
// missing privilege from a request the driver does not answer.
std::pair<Missing, std::string> ReasonFrom(std::string_view text) {
  for (Missing why : {Missing::kNotSupported, Missing::kPermissionDenied, Missing::kAbsent,
                      Missing::kNotReported, Missing::kError}) {
    const std::string_view name = record::MissingName(why);
    if (text == name) return {why, {}};
    if (text.starts_with(name) && text.substr(name.size()).starts_with(": ")) {
      return {why, std::string(text.substr(name.size() + 2))};
    }
  }
  const bool denied = text.find("Operation not permitted") != std::string_view::npos ||
                      text.find("Permission denied") != std::string_view::npos;
  return {denied ? Missing::kPermissionDenied : Missing::kNotSupported, std::string(text)};
}

// Why the text at `path` (X.txt) is empty, from X.err beside it.
template <typename T>
Measured<T> UnknownBeside(FileSource& files, const std::string& path) {
  auto err = files.ReadTrimmed(path.substr(0, path.size() - 4) + ".err");
  if (!err || err->empty())
    return Measured<T>::Unknown(Missing::kNotSupported, "ethtool printed nothing");
  auto [why, detail] = ReasonFrom(*err);
  return Measured<T>::Unknown(why, std::move(detail));
}

// A fact from one text: parsed; unknown when the tool printed nothing; untouched when the
// capture does not hold the file (a capture from before these files, or another interface).
template <typename T, typename Parse>
void FromText(FileSource& files, const std::string& path, Measured<T>& field, Parse parse) {
  auto text = Text(files, path);
  if (!text) return;
  if (text->empty()) {
    field = UnknownBeside<T>(files, path);
    return;
  }
  auto parsed = parse(*text);
  if (parsed) {
    field = std::move(*parsed);
  } else {
    field = Measured<T>::Unknown(Missing::kError, path + ": " + parsed.error().ToString());
  }
}

void DriverInfoFromText(FileSource& files, const std::string& path, record::NicFacts& nic) {
  auto text = Text(files, path);
  if (!text) return;
  Measured<std::map<std::string, std::string>> info;
  if (text->empty()) {
    info = UnknownBeside<std::map<std::string, std::string>>(files, path);
  } else if (auto parsed = ParseEthtoolDriverInfo(*text)) {
    info = std::move(*parsed);
  } else {
    info = Measured<std::map<std::string, std::string>>::Unknown(
        Missing::kError, path + ": " + parsed.error().ToString());
  }
  auto set = [&](const char* key, const char* empty_reason, Measured<std::string>& field) {
    if (!info.known()) {
      field = Measured<std::string>::Unknown(info.why(), info.detail());
      return;
    }
    auto it = info.value().find(key);
    if (it == info.value().end()) return;
    field = it->second.empty()
                ? Measured<std::string>::Unknown(Missing::kNotSupported, empty_reason)
                : Measured<std::string>(it->second);
  };
  set("driver", internal::kEmptyDriver, nic.driver);
  set("version", internal::kEmptyDriverVersion, nic.driver_version);
  set("firmware-version", internal::kEmptyFirmwareVersion, nic.firmware_version);
  set("bus-info", internal::kEmptyBusInfo, nic.bus_info);
}

// `ethtool IF`: what GLINKSETTINGS says of the link, over what sysfs said.
void SettingsFromText(FileSource& files, const std::string& path, record::NicFacts& nic) {
  if (!Text(files, path)) return;
  Measured<EthtoolSettings> settings;
  FromText(files, path, settings, ParseEthtoolSettings);
  if (!settings.known()) {
    nic.speed_mbps = Measured<uint64_t>::Unknown(settings.why(), settings.detail());
    nic.duplex = Measured<std::string>::Unknown(settings.why(), settings.detail());
    nic.autoneg = Measured<bool>::Unknown(settings.why(), settings.detail());
    return;
  }
  const EthtoolSettings& s = settings.value();
  if (s.speed_mbps.known() || s.speed_mbps.why() != Missing::kAbsent) nic.speed_mbps = s.speed_mbps;
  if (s.duplex.known() || s.duplex.why() != Missing::kAbsent) nic.duplex = s.duplex;
  if (s.autoneg.known() || s.autoneg.why() != Missing::kAbsent) nic.autoneg = s.autoneg;
}

// One fact as its text, or an empty text and why beside it.
template <typename T, typename Render>
void WriteFact(const std::string& base, const char* name, const Measured<T>& fact, Render render) {
  if (fact.known()) {
    WriteFile(base + name + ".txt", render(fact.value()));
    return;
  }
  WriteFile(base + name + ".txt", "");
  WriteFile(base + name + ".err", record::UnknownReason(fact.why(), fact.detail()) + "\n");
}

}  // namespace

namespace internal {

void FillFromCapturedTexts(FileSource& files, record::NicFacts& nic) {
  const std::string tc = TcDir(nic.interface);
  FromText(files, tc + "qdisc.txt", nic.qdisc, [&](std::string_view qdiscs) {
    return ParseTcQdisc(qdiscs, Text(files, tc + "class.txt").value_or(""));
  });
  if (nic.loopback) return;  // no NIC: no ethtool facts to read
  const std::string base = EthtoolDir(nic.interface);
  DriverInfoFromText(files, base + "i.txt", nic);
  SettingsFromText(files, base + "settings.txt", nic);
  FromText(files, base + "k.txt", nic.offloads, ParseEthtoolFeatures);
  FromText(files, base + "g.txt", nic.rings, ParseEthtoolRings);
  FromText(files, base + "c.txt", nic.coalescing, ParseEthtoolCoalescing);
  FromText(files, base + "a.txt", nic.pause, ParseEthtoolPause);
  FromText(files, base + "l.txt", nic.channels, ParseEthtoolChannels);
  FromText(files, base + "S.txt", nic.driver_stats, ParseEthtoolStatistics);
}

Measured<std::map<std::string, uint64_t>> CapturedDriverStats(FileSource& files,
                                                              const std::string& iface) {
  auto stats = Measured<std::map<std::string, uint64_t>>::Unknown(Missing::kAbsent,
                                                                  "not in a captured tree");
  FromText(files, EthtoolDir(iface) + "S.txt", stats, ParseEthtoolStatistics);
  return stats;
}

}  // namespace internal

Status WriteNicTexts(const std::string& dir, const record::NicFacts& nic) {
  const std::string tc = dir + TcDir(nic.interface);
  WriteFact(tc, "qdisc", nic.qdisc, RenderTcQdisc);
  if (const record::Qdisc* q = nic.qdisc.get(); q != nullptr && !RenderTcClasses(*q).empty()) {
    WriteFile(tc + "class.txt", RenderTcClasses(*q));
  }
  if (nic.loopback) return Ok();
  const std::string base = dir + EthtoolDir(nic.interface);
  // GDRVINFO answers its four strings together (an empty one is unknown alone), or fails for
  // all four with one reason.
  const bool answered = nic.driver.known() || nic.driver.detail() == internal::kEmptyDriver;
  WriteFact(base, "i",
            answered ? Measured<bool>(true)
                     : Measured<bool>::Unknown(nic.driver.why(), nic.driver.detail()),
            [&](bool) { return RenderEthtoolDriverInfo(nic); });
  // GLINKSETTINGS (or GSET) answers all three, or fails for all three with one reason.
  WriteFact(base, "settings",
            nic.autoneg.known() ? Measured<bool>(true)
                                : Measured<bool>::Unknown(nic.autoneg.why(), nic.autoneg.detail()),
            [&](bool) { return RenderEthtoolSettings(nic); });
  WriteFact(base, "k", nic.offloads, RenderEthtoolFeatures);
  WriteFact(base, "g", nic.rings, RenderEthtoolRings);
  WriteFact(base, "c", nic.coalescing, RenderEthtoolCoalescing);
  WriteFact(base, "a", nic.pause, RenderEthtoolPause);
  WriteFact(base, "l", nic.channels, RenderEthtoolChannels);
  WriteFact(base, "S", nic.driver_stats, RenderEthtoolStatistics);
  if (!std::filesystem::exists(base + "k.txt")) return Fail("--capture: cannot write " + base);
  return Ok();
}

}  // namespace nicbench::probes
