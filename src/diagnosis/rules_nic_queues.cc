// How the receive work spread over the NIC's queues (per-queue packet counters of the driver,
// else the NIC's per-queue interrupt lines; on a veth its NAPI queues' counters) against the
// number of flows, and a PCI Express link
// that trained below what the slot and the NIC can do while the line rate needs more.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/figures.h"
#include "diagnosis/nic_view.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

// One queue with at least this share of the received packets took "all" the flows.
constexpr double kOneQueueShare = 0.9;
// Usable share of a PCIe link's raw rate after TLP/DLLP overhead (128-byte payloads: 128 of
// ~152 bytes a TLP carries, and flow-control and ACK packets beside).
constexpr double kPcieEfficiency = 0.8;

struct QueueCounts {
  std::map<std::string, uint64_t> per_queue;  // "queue 3" or an IRQ line name
  const char* source = "";
  size_t queues_known = 0;  // queues the NIC has, as far as the source shows
};

// The received packets per queue from the driver's counters, when it counts per queue.
std::optional<QueueCounts> FromDriver(const End& end) {
  const auto& nic = end.record->nic;
  const auto moves = analysis::DriverCounterDeltas(nic);
  if (!moves || moves->rx_queue_packets.empty()) return std::nullopt;
  QueueCounts q;
  q.source = "the driver's per-queue packet counters (ethtool -S)";
  for (const auto& [queue, packets] : moves->rx_queue_packets) {
    q.per_queue[fmt::format("queue {}", queue)] = packets;
  }
  const std::string driver = DriverOf(end);
  std::set<int> queues;
  for (const auto& [name, value] : nic.driver_stats.value()) {
    const auto c = analysis::ClassifyDriverCounter(driver, name);
    if (c.kind == analysis::CounterKind::kRxQueuePackets) queues.insert(c.queue);
  }
  q.queues_known = queues.size();
  return q;
}

// A line that can carry received packets: not a transmit-only vector ("eth0-tx-0") nor a
// control one (virtio's "-config", mlx5's "_async_eq"/"_cmd_eq", mlx4's "-async").
bool ReceiveLine(const std::string& line) {
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* control : {"config", "async", "_eq", "cmd"}) {
    if (lower.find(control) != std::string::npos) return false;
  }
  const bool tx =
      lower.find("tx") != std::string::npos || lower.find("output") != std::string::npos;
  const bool rx = lower.find("rx") != std::string::npos || lower.find("input") != std::string::npos;
  return rx || !tx;
}

// The same from the NIC's interrupt lines (one per queue under MSI-X).
std::optional<QueueCounts> FromIrqLines(const RunView& view, const End& end) {
  const analysis::NicInterrupts irqs = analysis::CountNicInterrupts(view.run(), *end.record);
  if (irqs.per_line.size() < 2) return std::nullopt;
  QueueCounts q;
  q.source = "the NIC's per-queue interrupt lines (/proc/interrupts)";
  for (const auto& [line, count] : irqs.per_line) {
    if (ReceiveLine(line)) q.per_queue[line] = count;
  }
  q.queues_known = q.per_queue.size();
  return q;
}

size_t ChannelsOf(const record::NicFacts& nic) {
  const auto* c = nic.channels.get();
  return c == nullptr ? 0 : c->combined + c->rx;
}

bool IsVeth(const End& end) { return DriverOf(end) == "veth"; }

// A veth has no RSS: it hands each packet to its receive queue of the number of the queue the
// peer sent it on (kernel 6.18 drivers/net/veth.c veth_xmit: rxq = skb_get_queue_mapping), so
// the sender's choice of transmit queue (XPS, its number of queues) is what to look at.
void ExplainVeth(record::Finding& f, const End& receiver, const End* sender) {
  const std::string peer = sender != nullptr ? sender->record->nic.interface : "PEER";
  f.meaning =
      "A veth delivers each packet to the receive queue numbered as the peer's transmit queue, "
      "and each queue is one NAPI poll loop: with every flow on one queue, one loop does all "
      "the receive work. The sender put every flow on one transmit queue: XPS maps its CPUs to "
      "one queue, or the peer has one transmit queue.";
  f.next_step = fmt::format(
      "At the sender, check the transmit queues and XPS (ip -d link show {0}; grep . "
      "/sys/class/net/{0}/queues/tx-*/xps_cpus) and the receive queues here ({1}).",
      peer, Command(receiver, "ethtool -l {}"));
}

void ExplainRss(record::Finding& f, const End& end) {
  f.meaning =
      "The NIC hashes each flow to a receive queue (RSS); with every flow on one queue, one core "
      "does all the receive work while the others idle. RSS is off, the indirection table points "
      "at one queue, or the hash leaves out the ports (UDP by default on many NICs).";
  f.next_step = fmt::format(
      "Check the queues ({}), the indirection table ({}) and the hash fields ({}; for UDP: "
      "ethtool -N {} rx-flow-hash udp4 sdfn).",
      Command(end, "ethtool -l {}"), Command(end, "ethtool -x {}"),
      Command(end, "ethtool -n {} rx-flow-hash tcp4"), end.record->nic.interface);
}

std::optional<record::Finding> ImbalanceAt(const RunView& view, const Flow& flow) {
  const End& end = *flow.receiver;
  auto q = FromDriver(end);
  // A veth has no interrupt lines; its queues count only through the driver.
  if (!q && !IsVeth(end)) q = FromIrqLines(view, end);
  if (!q || q->queues_known < 2) return std::nullopt;
  uint64_t total = 0;
  for (const auto& [name, n] : q->per_queue) total += n;
  const auto top =
      std::max_element(q->per_queue.begin(), q->per_queue.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  if (total == 0 || top->second < kOneQueueShare * static_cast<double>(total)) return std::nullopt;
  const std::string& iface = end.record->nic.interface;
  record::Finding f =
      MakeFinding("nic-queue-imbalance", Severity::kWarning,
                  fmt::format("All {} flows landed on one receive queue at the {}: {} took {:.0f}%",
                              flow.streams, end.name, top->first, 100.0 * top->second / total));
  f.evidence.push_back(fmt::format("{} {}: {} of {} packets on {}, from {}", end.name, iface,
                                   top->second, total, top->first, q->source));
  f.evidence.push_back(
      fmt::format("{} {}: {} queues seen; channels {}", end.name, iface, q->queues_known,
                  ChannelsOf(end.record->nic) > 0 ? std::to_string(ChannelsOf(end.record->nic))
                                                  : std::string("unknown (ethtool -l)")));
  if (IsVeth(end)) {
    ExplainVeth(f, end, flow.sender);
  } else {
    ExplainRss(f, end);
  }
  return f;
}

double EncodingOf(double gts) { return gts < 8 ? 0.8 : 128.0 / 130.0; }

double UsableBits(const record::PciLink& link) {
  return link.speed_gts * 1e9 * EncodingOf(link.speed_gts) * link.width * kPcieEfficiency;
}

}  // namespace

Findings QueueImbalance(const RunView& view, const Thresholds&) {
  Findings out;
  for (const Flow& flow : view.flows()) {
    // One flow is always one queue: nothing to balance. Of the software devices only a veth
    // has receive queues of its own (each a NAPI poll loop); loopback, tun and bridges do not.
    if (flow.streams < 2 || flow.receiver == nullptr) continue;
    if (!HardwareNic(*flow.receiver) && !IsVeth(*flow.receiver)) continue;
    if (auto f = ImbalanceAt(view, flow)) out.push_back(std::move(*f));
  }
  return out;
}

Findings PcieLinkDegraded(const RunView& view, const Thresholds&) {
  Findings out;
  for (const End* end : view.ends()) {
    const auto& nic = end->record->nic;
    const auto* pci = nic.pci.get();
    const auto* speed = nic.speed_mbps.get();
    if (!HardwareNic(*end) || pci == nullptr || speed == nullptr || !pci->link.known()) continue;
    const record::PciLinkState& link = pci->link.value();
    if (link.current.speed_gts >= link.max.speed_gts && link.current.width >= link.max.width) {
      continue;
    }
    const double needed = static_cast<double>(*speed) * 1e6;  // each direction
    const double usable = UsableBits(link.current);
    if (link.current.width == 0 || usable >= needed) continue;
    record::Finding f = MakeFinding(
        "pcie-link-degraded", Severity::kWarning,
        fmt::format("The NIC's PCIe link at the {} trained at {} GT/s x{} (capable of {} GT/s x{}) "
                    "and carries less than the {} Mbit/s line",
                    end->name, link.current.speed_gts, link.current.width, link.max.speed_gts,
                    link.max.width, *speed));
    f.evidence.push_back(fmt::format(
        "{} {}: PCIe {} GT/s x{} now, {} GT/s x{} capable; about {:.1f} Gbit/s usable each way now "
        "({}b encoding, ~{:.0f}% after packet overhead), {:.1f} Gbit/s at full training",
        end->name, nic.interface, link.current.speed_gts, link.current.width, link.max.speed_gts,
        link.max.width, usable / 1e9, link.current.speed_gts < 8 ? "8b/10" : "128b/130",
        kPcieEfficiency * 100, UsableBits(link.max) / 1e9));
    f.meaning =
        "The NIC sits in a slot (or behind a riser or bridge) that gave it fewer lanes or a lower "
        "generation than it supports: the bus, not the wire, caps the transfer.";
    f.next_step = fmt::format(
        "Compare LnkCap with LnkSta ({}); move the card to a slot wired for x{} at {} GT/s, or "
        "check the BIOS's PCIe speed setting.",
        nic.bus_info.known() ? "lspci -vv -s " + nic.bus_info.value() : std::string("lspci -vv"),
        link.max.width, link.max.speed_gts);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace nicbench::diagnosis
