// Configuration facts worth a look: offloads off, MTU mismatch, half duplex, a link below
// what the NIC can do, legacy interrupts. Facts only; each rule is silent when the fact is
// unknown.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

struct OffloadName {
  const char* feature;
  const char* shortname;
};
constexpr OffloadName kOffloads[] = {{"tcp-segmentation-offload", "TSO"},
                                     {"generic-segmentation-offload", "GSO"},
                                     {"generic-receive-offload", "GRO"},
                                     {"tx-checksumming", "TX checksumming"},
                                     {"rx-checksumming", "RX checksumming"}};

bool PhysicalNic(const End& end) { return !IsSoftwareNic(end.record->nic); }

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The highest speed a device's PCI name promises, in Mbit/s, or 0 when it says nothing.
uint64_t SpeedInName(const std::string& device_name) {
  std::string name = Lower(device_name);
  for (const char* ten : {"10 gigabit", "10-gigabit", "10gbe", "10g "}) {
    if (name.find(ten) != std::string::npos) return 10000;
  }
  if (name.find("gigabit") != std::string::npos) return 1000;
  return 0;
}

}  // namespace

Findings OffloadsOff(const RunView& view, const Thresholds&) {
  Findings out;
  for (const End* end : view.ends()) {
    const record::NicFacts& nic = end->record->nic;
    if (nic.loopback || !nic.offloads.known()) continue;
    std::vector<std::string> off, evidence;
    for (const auto& state : nic.offloads.value()) {
      for (const auto& known : kOffloads) {
        if (state.name != known.feature || state.on) continue;
        // veth ships with GRO off; it only matters there with XDP, so it is not news.
        if (state.name == "generic-receive-offload" && nic.driver.value_or("") == "veth") continue;
        off.emplace_back(known.shortname);
        evidence.push_back(fmt::format("{} {}: {} off{}", end->name, nic.interface, state.name,
                                       state.fixed ? " [fixed]" : ""));
      }
    }
    if (off.empty()) continue;
    std::string list;
    for (const auto& name : off) list += (list.empty() ? "" : ", ") + name;
    record::Finding f = MakeFinding("offloads-off", Severity::kNotice,
                                    fmt::format("Offloads off at the {}: {}", end->name, list));
    f.evidence = evidence;
    f.meaning =
        "Without segmentation and receive offloads the CPU handles every 1500-byte "
        "packet on its own: more interrupts, more CPU per byte, and a CPU limit sooner "
        "(TSO on halved the interrupts at the same goodput in the re(4) test).";
    f.next_step = fmt::format(
        "Turn them on unless a driver bug forbids it (ethtool -K {} tso on "
        "gso on gro on) and compare CPU per GB before and after.",
        nic.interface);
    out.push_back(std::move(f));
  }
  return out;
}

Findings MtuMismatch(const RunView& view, const Thresholds&) {
  const End* remote = view.remote();
  if (remote == nullptr) return {};
  const auto& a = view.local().record->nic;
  const auto& b = remote->record->nic;
  if (a.loopback || b.loopback || !a.mtu.known() || !b.mtu.known()) return {};
  if (a.mtu.value() == b.mtu.value()) return {};
  record::Finding f = MakeFinding(
      "mtu-mismatch", Severity::kNotice,
      fmt::format("MTU differs between the ends: {} vs {}", a.mtu.value(), b.mtu.value()));
  f.evidence.push_back(fmt::format("{} {}: MTU {}", view.local().name, a.interface, a.mtu.value()));
  f.evidence.push_back(fmt::format("{} {}: MTU {}", remote->name, b.interface, b.mtu.value()));
  f.meaning =
      "On one network segment frames larger than the smaller MTU are dropped; TCP's MSS "
      "negotiation hides it, UDP and tunnels do not.";
  f.next_step = "Set the same MTU on both ends and every hop between them.";
  return {f};
}

Findings HalfDuplex(const RunView& view, const Thresholds&) {
  Findings out;
  for (const End* end : view.ends()) {
    const auto& nic = end->record->nic;
    if (!PhysicalNic(*end) || !nic.duplex.known() || Lower(nic.duplex.value()) != "half") continue;
    record::Finding f = MakeFinding("half-duplex", Severity::kWarning,
                                    fmt::format("Half duplex at the {}", end->name));
    f.evidence.push_back(fmt::format("{} {}: duplex half", end->name, nic.interface));
    f.meaning =
        "A half-duplex link cannot send and receive at once; against a full-duplex "
        "partner (a duplex mismatch) it collides and loses packets under load.";
    f.next_step =
        "Enable autonegotiation on both sides (ethtool -s IF autoneg on) or force the "
        "same full-duplex setting on both.";
    out.push_back(std::move(f));
  }
  return out;
}

Findings LinkBelowCapability(const RunView& view, const Thresholds&) {
  Findings out;
  for (const End* end : view.ends()) {
    const auto& nic = end->record->nic;
    if (!PhysicalNic(*end) || !nic.speed_mbps.known() || !nic.pci.known()) continue;
    uint64_t promised = SpeedInName(nic.pci.value().device_name);
    if (promised == 0 || nic.speed_mbps.value() >= promised) continue;
    record::Finding f = MakeFinding("link-below-nic-speed", Severity::kNotice,
                                    fmt::format("Link at {} Mbit/s on a {} Mbit/s NIC at the {}",
                                                nic.speed_mbps.value(), promised, end->name));
    f.evidence.push_back(fmt::format("{} {}: negotiated {} Mbit/s; PCI device \"{}\"", end->name,
                                     nic.interface, nic.speed_mbps.value(),
                                     nic.pci.value().device_name));
    f.meaning =
        "The NIC can do more than the link negotiated: the cable, the partner port or "
        "autonegotiation holds it back.";
    f.next_step =
        "Check the cable (Cat5e or better for gigabit), the switch port's speed and "
        "ethtool IF's advertised and link-partner modes.";
    out.push_back(std::move(f));
  }
  const End* remote = view.remote();
  if (remote && PhysicalNic(view.local()) && PhysicalNic(*remote)) {
    const auto& a = view.local().record->nic;
    const auto& b = remote->record->nic;
    if (a.speed_mbps.known() && b.speed_mbps.known() &&
        a.speed_mbps.value() != b.speed_mbps.value()) {
      record::Finding f =
          MakeFinding("link-speed-differs", Severity::kNotice,
                      fmt::format("The ends' links run at different speeds: {} vs {} Mbit/s",
                                  a.speed_mbps.value(), b.speed_mbps.value()));
      f.evidence.push_back(
          fmt::format("{} {}: {} Mbit/s", view.local().name, a.interface, a.speed_mbps.value()));
      f.evidence.push_back(
          fmt::format("{} {}: {} Mbit/s", remote->name, b.interface, b.speed_mbps.value()));
      f.meaning = "The slower link bounds the path; a switch between them buffers the difference.";
      f.next_step = "Check the slower end's cable and port if it should be faster.";
      out.push_back(std::move(f));
    }
  }
  return out;
}

Findings LegacyIrqMode(const RunView& view, const Thresholds&) {
  Findings out;
  for (const End* end : view.ends()) {
    const auto& nic = end->record->nic;
    if (!PhysicalNic(*end) || !nic.irq_mode.known()) continue;
    std::string mode = Lower(nic.irq_mode.value());
    if (mode != "intx" && mode != "legacy") continue;
    record::Finding f = MakeFinding("irq-mode-legacy", Severity::kNotice,
                                    fmt::format("Legacy INTx interrupts at the {}", end->name));
    f.evidence.push_back(
        fmt::format("{} {}: IRQ mode {}", end->name, nic.interface, nic.irq_mode.value()));
    f.meaning =
        "A shared, level-triggered line: one queue, one vector, possibly shared with "
        "other devices, and a register read per interrupt.";
    f.next_step = "Check why MSI/MSI-X is off (driver parameter, pci=nomsi, BIOS) and enable it.";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace nicbench::diagnosis
