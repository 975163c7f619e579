// `nicbench inspect [--iface IF | --peer ADDR] [--json] [--root DIR]`: the host's facts and, for
// one interface, its NIC facts (probes layer). Text is aligned "key: value" lines with unknowns
// spelled out ("unknown (not supported: ...)"); --json writes one document with the record
// types' JSON form (record/json.h) and nothing else on stdout. --root reads a captured tree
// of /proc and /sys instead of the running machine.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/exit_code.h"
#include "base/log.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/parse_args.h"
#include "net/socket_address.h"
#include "probes/capture.h"
#include "probes/collect_facts.h"
#include "probes/file_source.h"
#include "record/json.h"
#include "report/text_report.h"

namespace nicbench::cli {
namespace {

struct InspectArgs {
  std::string iface, peer, root, capture;
  bool json = false;
};

// Lines of one section, printed with their values aligned.
class Section {
 public:
  explicit Section(std::string title) : title_(std::move(title)) {}
  void Add(std::string key, std::string value) { rows_.emplace_back(std::move(key), std::move(value)); }
  template <typename T, typename Format>
  void AddMeasured(std::string key, const record::Measured<T>& m, Format format) {
    Add(std::move(key), m.known() ? format(m.value()) : Unknown(m));
  }
  void Print() const {
    size_t width = 0;
    for (const auto& row : rows_) width = std::max(width, row.first.size());
    std::printf("%s\n", title_.c_str());
    for (const auto& [key, value] : rows_) {
      std::printf("  %s:%*s %s\n", key.c_str(), static_cast<int>(width - key.size()), "", value.c_str());
    }
  }

  template <typename T>
  static std::string Unknown(const record::Measured<T>& m) {
    std::string text = std::string("unknown (") + record::MissingName(m.why());
    if (!m.detail().empty()) text += ": " + m.detail();
    return text + ")";
  }

 private:
  std::string title_;
  std::vector<std::pair<std::string, std::string>> rows_;
};

std::string Plain(const std::string& s) { return s; }
template <typename T>
std::string Number(const T& v) { return std::to_string(v); }

void PrintHost(const record::HostFacts& host) {
  Section section("host");
  section.AddMeasured("hostname", host.hostname, Plain);
  section.AddMeasured("kernel", host.kernel, Plain);
  section.AddMeasured("cpu model", host.cpu_model, Plain);
  section.AddMeasured("online cpus", host.cpu_count, Number<int>);
  section.Print();
}

void AddLink(Section& s, const record::NicFacts& nic) {
  s.AddMeasured("speed", nic.speed_mbps, [](uint64_t mbps) { return std::to_string(mbps) + " Mbit/s"; });
  s.AddMeasured("duplex", nic.duplex, Plain);
  s.AddMeasured("autoneg", nic.autoneg, [](bool on) { return std::string(on ? "on" : "off"); });
  s.AddMeasured("mtu", nic.mtu, Number<uint32_t>);
  s.AddMeasured("qdisc", nic.qdisc, [](const record::Qdisc& q) {
    std::string text = q.kind;
    if (q.rate_bits_per_second > 0) text += " rate " + FormatBitRate(static_cast<double>(q.rate_bits_per_second));
    if (q.overhead_bytes > 0) text += fmt::format(" overhead {}", q.overhead_bytes);
    return text;
  });
}

void AddHardware(Section& s, const record::NicFacts& nic) {
  s.AddMeasured("driver", nic.driver, Plain);
  s.AddMeasured("driver version", nic.driver_version, Plain);
  s.AddMeasured("firmware", nic.firmware_version, Plain);
  s.AddMeasured("bus", nic.bus_info, Plain);
  s.AddMeasured("pci", nic.pci, [](const record::PciIdentity& p) {
    std::string text = p.vendor_id + ":" + p.device_id;
    if (!p.vendor_name.empty()) text += " " + p.vendor_name;
    if (!p.device_name.empty()) text += " / " + p.device_name;
    return text;
  });
  if (nic.pci.known()) {
    const record::PciIdentity& p = nic.pci.value();
    s.Add("pci card", report::PciCardText(p));
    s.Add("pcie link", report::PciLinkText(p.link));
    s.Add("msi", report::PciIrqCapText("MSI", p.msi));
    s.Add("msi-x", report::PciIrqCapText("MSI-X", p.msix));
  }
  s.AddMeasured("irq mode", nic.irq_mode, Plain);
  s.AddMeasured("irq vectors", nic.irq_vectors, [](const std::vector<record::IrqVector>& vectors) {
    std::string text = std::to_string(vectors.size());
    for (const auto& v : vectors) {
      text += fmt::format("\n      irq {} {}{}", v.irq, v.name.empty() ? "-" : v.name,
                          v.affinity.empty() ? "" : " cpus " + v.affinity);
    }
    return text;
  });
}

void AddQueues(Section& s, const record::NicFacts& nic) {
  s.AddMeasured("rings", nic.rings, [](const record::RingSizes& r) {
    return fmt::format("rx {} (max {}), tx {} (max {})", r.rx, r.rx_max, r.tx, r.tx_max);
  });
  s.AddMeasured("channels", nic.channels, [](const record::ChannelCounts& c) {
    return fmt::format("combined {} (max {}), rx {}, tx {}, other {}", c.combined, c.combined_max, c.rx,
                       c.tx, c.other);
  });
  s.AddMeasured("coalescing", nic.coalescing, [](const record::Coalescing& c) {
    return fmt::format("rx {} us / {} frames{}, tx {} us / {} frames{}", c.rx_usecs, c.rx_frames,
                       c.adaptive_rx ? " adaptive" : "", c.tx_usecs, c.tx_frames, c.adaptive_tx ? " adaptive" : "");
  });
  if (!nic.offloads.known()) {
    s.Add("offloads", Section::Unknown(nic.offloads));
  } else {
    // The ethtool -k groups come first in the list; the individual kernel features after them
    // are in the JSON form.
    for (const record::OffloadState& o : nic.offloads.value()) {
      if (o.name.find("offload") == std::string::npos && o.name.find("checksumming") == std::string::npos &&
          o.name != "scatter-gather") {
        continue;
      }
      s.Add(o.name, std::string(o.on ? "on" : "off") + (o.fixed ? " [fixed]" : ""));
    }
  }
}

void AddCounters(Section& s, const record::NicFacts& nic) {
  s.AddMeasured("counters", nic.counters, [](const std::map<std::string, uint64_t>& counters) {
    std::string text;
    for (const auto& [name, value] : counters) {
      if (value != 0) text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
    }
    return text.empty() ? std::string("all zero") : text;
  });
  s.AddMeasured("driver stats", nic.driver_stats, [](const std::map<std::string, uint64_t>& stats) {
    return fmt::format("{} counters (see --json)", stats.size());
  });
}

void PrintNic(const record::NicFacts& nic) {
  Section section("interface " + nic.interface + (nic.loopback ? " (loopback)" : ""));
  AddHardware(section, nic);
  AddLink(section, nic);
  AddQueues(section, nic);
  AddCounters(section, nic);
  section.Print();
}

std::vector<std::string> InterfaceNames(probes::FileSource& files) {
  auto names = files.ListDir("/sys/class/net");
  if (!names) return {};
  std::vector<std::string> out;
  for (std::string& name : *names) {
    if (name != "bonding_masters") out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void PrintJsonError(bool json, const std::string& message) {
  if (json) std::printf("%s\n", nlohmann::json{{"error", message}}.dump().c_str());
  LogError(message);
}

int Inspect(const InspectArgs& args);

// --capture DIR: the tree the probes read, written for --root DIR to read back.
int Capture(const InspectArgs& args, const std::string& iface) {
  std::vector<std::string> interfaces;
  if (!iface.empty()) interfaces.push_back(iface);
  if (auto s = probes::CaptureTree(args.capture, interfaces, args.root.empty() ? "/" : args.root + "/");
      !s) {
    PrintJsonError(args.json, "inspect: " + s.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  std::fprintf(stderr, "nicbench: captured %s; read it with: nicbench inspect --root %s%s\n",
               iface.empty() ? "every interface" : iface.c_str(), args.capture.c_str(),
               iface.empty() ? "" : (" --iface " + iface).c_str());
  return Inspect(InspectArgs{iface, "", args.capture, "", args.json});
}

int Inspect(const InspectArgs& args) {
  probes::DirFileSource files(args.root.empty() ? "/" : args.root);
  std::string iface = args.iface;
  if (!args.peer.empty()) {
    if (!args.root.empty()) {
      PrintJsonError(args.json, "inspect: --peer looks up a route on this machine; it cannot be used with --root");
      return ToInt(ExitCode::kUsage);
    }
    // A name is resolved here as `run` resolves its host (the probe takes numeric addresses).
    auto addresses = net::Resolve(args.peer, 0);
    if (!addresses) {
      PrintJsonError(args.json, "inspect: cannot resolve '" + args.peer + "': " +
                                    addresses.error().ToString());
      return ToInt(ExitCode::kEnvironment);
    }
    auto found = probes::InterfaceForPeer(addresses->front().HostString());
    if (!found) {
      PrintJsonError(args.json, "inspect: " + found.error().ToString());
      return ToInt(ExitCode::kEnvironment);
    }
    iface = *found;
  }
  if (!args.capture.empty()) return Capture(args, iface);
  record::HostFacts host = probes::CollectHostFacts(files);
  nlohmann::json doc;
  doc["host"] = host;
  if (iface.empty()) {
    auto names = InterfaceNames(files);
    doc["interfaces"] = names;
    if (args.json) {
      std::printf("%s\n", doc.dump(2).c_str());
    } else {
      PrintHost(host);
      std::string list;
      for (const std::string& name : names) list += (list.empty() ? "" : " ") + name;
      std::printf("interfaces: %s\n", list.c_str());
    }
    return ToInt(ExitCode::kOk);
  }
  auto nic = probes::CollectNicFacts(iface, files);
  if (!nic) {
    PrintJsonError(args.json, "inspect: " + nic.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  if (args.json) {
    doc["nic"] = *nic;
    std::printf("%s\n", doc.dump(2).c_str());
  } else {
    PrintHost(host);
    PrintNic(*nic);
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

int RunInspectCommand(int argc, char** argv) {
  CLI::App app{"nicbench inspect: host and NIC facts (driver, link, offloads, rings, IRQs, qdisc)", "inspect"};
  InspectArgs args;
  auto* iface = app.add_option("-i,--iface", args.iface, "interface to describe (e.g. eth0)");
  auto* peer = app.add_option("-p,--peer", args.peer, "describe the interface that routes to this address");
  iface->excludes(peer);
  app.add_flag("-J,--json", args.json, "one JSON document on stdout");
  app.add_option("--root", args.root, "read /proc and /sys under this directory (a captured tree)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--capture", args.capture, "write what the probes read from /proc and /sys "
                                            "under this directory (for --root), then describe it");
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) {
        std::fprintf(stderr, "%s\n", m.c_str());
      })) {
    return *code;
  }
  return Inspect(args);
}

}  // namespace nicbench::cli
