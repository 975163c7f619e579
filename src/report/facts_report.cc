// `nicbench inspect`'s output: the host's facts and an interface's NIC facts as aligned
// "key: value" lines, or as one JSON document in the record types' JSON form (record/json.h).
#include "report/facts_report.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/units.h"
#include "record/json.h"
#include "report/text_report.h"

namespace nicbench::report {
namespace {

// Lines of one section, printed with their values aligned.
class Section {
 public:
  explicit Section(std::string title) : title_(std::move(title)) {}
  void Add(std::string key, std::string value) {
    rows_.emplace_back(std::move(key), std::move(value));
  }
  template <typename T, typename Format>
  void AddMeasured(const std::string& key, const record::Measured<T>& m, Format format) {
    Add(key, m.known() ? format(m.value()) : Unknown(m));
  }
  std::string Render() const {
    size_t width = 0;
    for (const auto& row : rows_) width = std::max(width, row.first.size());
    std::string out = title_ + "\n";
    for (const auto& [key, value] : rows_) {
      out += fmt::format("  {}:{} {}\n", key, std::string(width - key.size(), ' '), value);
    }
    return out;
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
std::string Number(const T& v) {
  return std::to_string(v);
}

}  // namespace

namespace {

// "powersave 1.20 GHz (1.20-3.30 GHz, intel_pstate)".
std::string FrequencyLine(const record::CpuFrequency& f) {
  return fmt::format("{} {:.2f} GHz ({:.2f}-{:.2f} GHz, {})", f.governor, f.current_khz / 1e6,
                     f.min_khz / 1e6, f.max_khz / 1e6, f.driver.empty() ? "?" : f.driver);
}

}  // namespace

std::string RenderHostFactsText(const record::HostFacts& host) {
  Section section("host");
  section.AddMeasured("hostname", host.hostname, Plain);
  section.AddMeasured("kernel", host.kernel, Plain);
  section.AddMeasured("cpu model", host.cpu_model, Plain);
  section.AddMeasured("online cpus", host.cpu_count, Number<int>);
  section.AddMeasured("cpu frequency", host.cpu_frequencies,
                      [](const std::vector<record::CpuFrequency>& cpus) {
                        std::string text = std::to_string(cpus.size()) + " cpus";
                        for (const record::CpuFrequency& f : cpus) {
                          text += fmt::format("\n      cpu{} {}", f.cpu, FrequencyLine(f));
                        }
                        return text;
                      });
  return section.Render();
}

namespace {

void AddLink(Section& s, const record::NicFacts& nic) {
  s.AddMeasured("speed", nic.speed_mbps,
                [](uint64_t mbps) { return std::to_string(mbps) + " Mbit/s"; });
  s.AddMeasured("duplex", nic.duplex, Plain);
  s.AddMeasured("autoneg", nic.autoneg, [](bool on) { return std::string(on ? "on" : "off"); });
  s.AddMeasured("mtu", nic.mtu, Number<uint32_t>);
  s.AddMeasured("qdisc", nic.qdisc, [](const record::Qdisc& q) {
    std::string text = q.kind;
    if (q.rate_bits_per_second > 0)
      text += " rate " + FormatBitRate(static_cast<double>(q.rate_bits_per_second));
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
    s.Add("pci card", PciCardText(p));
    s.Add("pcie link", PciLinkText(p.link));
    s.Add("msi", PciIrqCapText("MSI", p.msi));
    s.Add("msi-x", PciIrqCapText("MSI-X", p.msix));
  }
  s.AddMeasured("irq mode", nic.irq_mode, Plain);
  s.AddMeasured("irq vectors", nic.irq_vectors, [](const std::vector<record::IrqVector>& vectors) {
    std::string text = std::to_string(vectors.size());
    for (const auto& v : vectors) {
      text += fmt::format("\n      irq {} {}{}{}", v.irq, v.name.empty() ? "-" : v.name,
                          v.affinity.empty() ? "" : " cpus " + v.affinity,
                          v.effective_affinity.empty() ? "" : " effective " + v.effective_affinity);
    }
    return text;
  });
}

// Where the NIC sits: its NUMA node and the CPUs local to it.
void AddPlacement(Section& s, const record::NicFacts& nic) {
  s.AddMeasured("numa node", nic.numa_node, Number<int>);
  s.AddMeasured("local cpus", nic.local_cpus, Plain);
}

void AddQueues(Section& s, const record::NicFacts& nic) {
  s.AddMeasured("rings", nic.rings, [](const record::RingSizes& r) {
    return fmt::format("rx {} (max {}), tx {} (max {})", r.rx, r.rx_max, r.tx, r.tx_max);
  });
  s.AddMeasured("channels", nic.channels, [](const record::ChannelCounts& c) {
    return fmt::format("combined {} (max {}), rx {}, tx {}, other {}", c.combined, c.combined_max,
                       c.rx, c.tx, c.other);
  });
  s.AddMeasured("coalescing", nic.coalescing, [](const record::Coalescing& c) {
    return fmt::format("rx {} us / {} frames{}, tx {} us / {} frames{}", c.rx_usecs, c.rx_frames,
                       c.adaptive_rx ? " adaptive" : "", c.tx_usecs, c.tx_frames,
                       c.adaptive_tx ? " adaptive" : "");
  });
  s.AddMeasured("flow control", nic.pause, [](const record::PauseSettings& p) {
    return fmt::format("rx {}, tx {}, autoneg {}", p.rx ? "on" : "off", p.tx ? "on" : "off",
                       p.autoneg ? "on" : "off");
  });
  if (!nic.offloads.known()) {
    s.Add("offloads", Section::Unknown(nic.offloads));
  } else {
    // The ethtool -k groups come first in the list; the individual kernel features after them
    // are in the JSON form.
    for (const record::OffloadState& o : nic.offloads.value()) {
      if (o.name.find("offload") == std::string::npos &&
          o.name.find("checksumming") == std::string::npos && o.name != "scatter-gather") {
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

}  // namespace

std::string RenderNicFactsText(const record::NicFacts& nic) {
  Section section("interface " + nic.interface + (nic.loopback ? " (loopback)" : ""));
  AddHardware(section, nic);
  AddPlacement(section, nic);
  AddLink(section, nic);
  AddQueues(section, nic);
  AddCounters(section, nic);
  return section.Render();
}

std::string RenderInterfaceListText(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : " ") + name;
  return "interfaces: " + list + "\n";
}

std::string RenderFactsJson(const record::HostFacts& host,
                            const std::vector<std::string>* interfaces,
                            const record::NicFacts* nic) {
  nlohmann::json doc;
  doc["host"] = host;
  if (interfaces != nullptr) doc["interfaces"] = *interfaces;
  if (nic != nullptr) doc["nic"] = *nic;
  return doc.dump(2) + "\n";
}

std::string RenderFactsJsonError(const std::string& message) {
  return nlohmann::json{{"error", message}}.dump() + "\n";
}

}  // namespace nicbench::report
