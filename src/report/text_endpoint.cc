// The per-end sections of the summary: what the host spent, where its interrupts went, what it
// dropped, and the NIC facts that matter. Unknowns print as "unknown (reason)".
#include <fmt/format.h>

#include "analysis/figures.h"
#include "analysis/host_figures.h"
#include "record/json.h"
#include "report/format.h"
#include "report/terminal_text.h"
#include "report/text_lines.h"
#include "report/text_report.h"

namespace nicbench::report::text {
namespace {

constexpr const char kIndent[] = "               ";  // under the value column

std::string Row(const char* label, const std::string& value) {
  return fmt::format("  {:<13}{}\n", label, value);
}

std::string PerGigabyte(const record::Measured<double>& m) {
  return m.known() ? fmt::format("{:.3g} CPU-s/GB", m.value()) : "unknown (" + m.detail() + ")";
}

// The whole host's busy time per GB moved through this end (analysis::EndCost), split by kind
// of work in the shares the host's samples give. Labelled as the host's: other processes are in
// it; the transfer's own cost is the next row, part by part the cpu-cost finding's.
std::string HostBusy(const record::RunRecord& run, const analysis::EndCost& cost,
                     const record::EndpointRecord& end) {
  const std::optional<analysis::CpuSeconds> cpu =
      analysis::HostCpuSeconds(analysis::CountedSamples(run, end));
  if (!cpu) {
    return end.samples.empty() ? "unknown (no host samples)"
                               : UnknownText(end.samples.front().cpus);
  }
  const record::Measured<double>& host = cost.host_cpu_seconds_per_gigabyte;
  if (!host.known() || !(cpu->total > 0)) return PerGigabyte(host);
  std::string text = PerGigabyte(host) + " (";
  bool first = true;
  for (const analysis::KindShare& k : cpu->kinds) {
    if (k.percent <= 0) continue;  // CPU-seconds of this kind, despite the name
    text += fmt::format("{}{} {:.3g}", first ? "" : ", ", k.name,
                        k.percent / cpu->total * host.value());
    first = false;
  }
  return text + fmt::format(") over {} CPUs, {:.2f} s; all processes, not only this transfer",
                            cpu->cpus, cpu->wall_seconds);
}

// The transfer's own CPU cost per GB: nicbench's time plus the packet work on the flow cores.
std::string TransferCost(const analysis::EndCost& cost) {
  if (!cost.cpu_seconds_per_gigabyte.known()) return PerGigabyte(cost.cpu_seconds_per_gigabyte);
  std::string text =
      PerGigabyte(cost.cpu_seconds_per_gigabyte) +
      " (nicbench's own time and the packet work of the cores that carried the flows)";
  if (!cost.polluted.empty()) text += "; partly other traffic's: " + cost.polluted;
  return text;
}

// A request/response test moves a few bytes per transaction: per GB its CPU time is a
// meaningless huge number, so its rows give the CPU time per transaction (docs/rr.md).
std::string PerTransaction(const record::Measured<double>& us, const char* what) {
  return us.known() ? fmt::format("{:.2f} CPU-us per transaction ({})", us.value(), what)
                    : "unknown (" + us.detail() + ")";
}

std::string CpuRows(const record::RunRecord& run, const record::EndpointRecord& end) {
  const analysis::Role role = analysis::RoleOf(end);
  if (run.spec.rr.enabled()) {
    const analysis::RrFigures rr = analysis::ComputeRrFigures(run);
    const bool client = role == analysis::Role::kClient;
    return Row("Host busy", PerTransaction(client ? rr.client_host_us_per_transaction
                                                  : rr.server_host_us_per_transaction,
                                           "all processes, not only this test")) +
           Row("Transfer", PerTransaction(client ? rr.client_process_us_per_transaction
                                                 : rr.server_process_us_per_transaction,
                                          "nicbench's own time"));
  }
  const analysis::EndCost cost = analysis::CostOf(run, role);
  return Row("Host busy", HostBusy(run, cost, end)) + Row("Transfer", TransferCost(cost));
}

std::string Busiest(const record::RunRecord& run, const record::EndpointRecord& end) {
  const std::vector<analysis::CoreLoad> cores =
      analysis::BusiestCores(analysis::CountedSamples(run, end), 3);
  if (cores.empty())
    return end.samples.empty() ? "unknown (no host samples)"
                               : UnknownText(end.samples.front().cpus);
  std::string text;
  for (const analysis::CoreLoad& core : cores) {
    if (!text.empty()) text += ", ";
    text += fmt::format("cpu{} {:.0f}%", core.cpu, core.busy_percent);
    std::string kinds;
    for (size_t i = 0; i < core.kinds.size() && i < 3; ++i) {
      if (core.kinds[i].percent < 0.5) break;
      kinds += fmt::format("{}{} {:.0f}", kinds.empty() ? "" : ", ", core.kinds[i].name,
                           core.kinds[i].percent);
    }
    if (!kinds.empty()) text += " (" + kinds + ")";
  }
  return text;
}

std::string Interrupts(const record::EndpointRecord& end) {
  const std::vector<analysis::IrqLineTotal> lines = analysis::TopIrqLines(end.samples, 4);
  if (lines.empty())
    return end.samples.empty() ? "unknown (no host samples)"
                               : UnknownText(end.samples.front().irqs);
  std::string text;
  for (const analysis::IrqLineTotal& line : lines) {
    if (!text.empty()) text += std::string("\n") + kIndent;
    text += fmt::format("{} {}{} {}/s", line.irq, line.name, line.nic ? " [NIC]" : "",
                        CompactCount(line.per_second));
    if (line.top_cpu >= 0) text += fmt::format(", mostly cpu{}", line.top_cpu);
  }
  return text;
}

std::string Drops(const record::EndpointRecord& end) {
  std::string text;
  bool softnet_known = false;
  analysis::SoftnetTotals softnet;
  for (const record::HostInterval& sample : end.samples) {
    if (const auto s = analysis::Softnet(sample)) {
      softnet_known = true;
      softnet.dropped += s->dropped;
      softnet.time_squeeze += s->time_squeeze;
    }
  }
  text = softnet_known
             ? fmt::format("softnet {} dropped, {} squeezed", softnet.dropped, softnet.time_squeeze)
             : std::string("softnet unknown");
  for (const auto& [name, total] : analysis::DropCounters(end.samples)) {
    text += fmt::format("; {} {}", name, total);
  }
  return text;
}

template <typename T>
std::string Or(const record::Measured<T>& m, const std::string& known_text) {
  return m.known() ? known_text : UnknownText(m);
}

std::string OffloadsOff(const record::NicFacts& nic) {
  if (!nic.offloads.known()) return "offloads " + UnknownText(nic.offloads);
  // A feature that is off and [fixed] is what the hardware is, not a setting anyone can
  // change: counted, not listed, so the settings worth a look stand out.
  std::string off;
  int fixed_off = 0;
  for (const record::OffloadState& o : nic.offloads.value()) {
    if (o.on || o.name.empty()) continue;
    if (o.fixed) {
      ++fixed_off;
    } else {
      off += (off.empty() ? "" : ", ") + o.name;
    }
  }
  std::string fixed = fixed_off ? fmt::format(" ({} more off and fixed)", fixed_off) : "";
  return off.empty() ? "offloads: every changeable one on" + fixed : "offloads off: " + off + fixed;
}

// IperfBitRate pads to iperf3's column width; inside a sentence the padding goes.
std::string Trimmed(std::string text) {
  text.erase(0, text.find_first_not_of(' '));
  return text;
}

std::string LinkLine(const record::NicFacts& nic) {
  return "link " + Or(nic.speed_mbps, fmt::format("{} Mbit/s", nic.speed_mbps.value_or(0))) + ", " +
         Or(nic.duplex, nic.duplex.value_or("") + " duplex") + ", autoneg " +
         Or(nic.autoneg, nic.autoneg.value_or(false) ? "on" : "off") + ", MTU " +
         Or(nic.mtu, std::to_string(nic.mtu.value_or(0)));
}

std::string QueueLine(const record::NicFacts& nic) {
  const record::RingSizes r = nic.rings.value_or({});
  std::string rings =
      Or(nic.rings, fmt::format("rx {}/{} tx {}/{}", r.rx, r.rx_max, r.tx, r.tx_max));
  std::string irq = Or(nic.irq_mode, nic.irq_mode.value_or(""));
  if (nic.irq_vectors.known()) irq += fmt::format(", {} vectors", nic.irq_vectors.value().size());
  const record::Qdisc q = nic.qdisc.value_or({});
  std::string qdisc =
      Or(nic.qdisc, q.kind + (q.rate_bits_per_second != 0
                                  ? " rate " + Trimmed(IperfBitRate(q.rate_bits_per_second))
                                  : std::string()));
  return "rings " + rings + "; IRQ " + irq + "; qdisc " + qdisc;
}

}  // namespace

std::string NicSection(const record::NicFacts& nic) {
  if (nic.loopback) {
    return Row("NIC", nic.interface + ": loopback, no NIC; MTU " +
                          Or(nic.mtu, std::to_string(nic.mtu.value_or(0))));
  }
  std::string ident = nic.interface + ": driver " + Or(nic.driver, nic.driver.value_or("")) + " " +
                      Or(nic.driver_version, nic.driver_version.value_or("")) + ", firmware " +
                      Or(nic.firmware_version, nic.firmware_version.value_or(""));
  if (nic.pci.known()) {
    const record::PciIdentity& p = nic.pci.value();
    ident += fmt::format(", {}:{} {} {}", p.vendor_id, p.device_id, p.vendor_name, p.device_name);
  }
  std::string out = Row("NIC", ident);
  if (nic.pci.known()) {
    const record::PciIdentity& p = nic.pci.value();
    out += std::string(kIndent) + "PCI " + PciCardText(p) + "; PCIe " + PciLinkText(p.link) + "\n" +
           std::string(kIndent) + PciIrqCapText("MSI", p.msi) + "; " +
           PciIrqCapText("MSI-X", p.msix) + "\n";
  }
  out += std::string(kIndent) + LinkLine(nic) + "\n";
  out += std::string(kIndent) + OffloadsOff(nic) + "\n";
  out += std::string(kIndent) + QueueLine(nic) + "\n";
  if (!nic.coalescing.known())
    out += std::string(kIndent) + "coalescing " + UnknownText(nic.coalescing) + "\n";
  return out;
}

std::string EndpointSection(const record::RunRecord& run, const record::EndpointRecord& end,
                            const char* title) {
  // The remote end's words are the peer's: a host name may hold escape sequences.
  std::string head = fmt::format("{}: {}", title, record::RoleName(end.role));
  if (end.host.hostname.known()) head += " " + TerminalSafe(end.host.hostname.value());
  if (!end.software.empty()) head += ", " + TerminalSafe(end.software);
  if (end.host.kernel.known()) head += ", Linux " + TerminalSafe(end.host.kernel.value());
  std::string out = head + "\n";
  out += CpuRows(run, end);
  out += Row("Busiest", Busiest(run, end));
  out += Row("Interrupts", Interrupts(end));
  out += Row("Drops", Drops(end));
  out += NicSection(end.nic);
  return out;
}

}  // namespace nicbench::report::text
