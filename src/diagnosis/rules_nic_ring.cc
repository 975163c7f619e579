// The NIC's rings and flow control, from the driver's own counters (ethtool -S read when the data
// started and when the test ended; analysis/driver_counters.h names them per driver) and the
// ring sizes (ethtool -g): frames lost because a receive ring ran out of descriptors or the
// NIC's buffer overflowed, a transmit ring too small for the rate (the seed-3 case: re(4)'s 64
// descriptors), and pause frames. Each is silent when its data is unknown.
#include <fmt/format.h>

#include "diagnosis/link.h"
#include "diagnosis/nic_view.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using analysis::CounterKind;
using analysis::DriverCounterMoves;
using record::Severity;

// Lost frames at or above this share of the frames received: a warning, not a notice.
constexpr double kRingWarningFraction = 0.001;
// A transmit ring that holds less than this much time at line rate drains before a typical
// interrupt-coalescing delay or scheduler wakeup refills it (the seed-3 case: 64 descriptors
// are 0.79 ms of full frames at 1 Gbit/s).
constexpr double kTxRingMinSeconds = 0.001;

void MovedEvidence(const End& end, const DriverCounterMoves& m, CounterKind kind,
                   std::vector<std::string>& evidence) {
  auto it = m.moved.find(kind);
  if (it == m.moved.end()) return;
  size_t shown = 0;
  for (const auto& [name, delta] : it->second) {
    if (++shown > 4) {
      evidence.push_back(fmt::format("{} {}: {} more counters of this kind moved", end.name,
                                     end.record->nic.interface, it->second.size() - 4));
      break;
    }
    evidence.push_back(fmt::format("{} {}: {} +{} during the test ({}, ethtool -S)", end.name,
                                   end.record->nic.interface, name, delta,
                                   analysis::CounterKindName(kind)));
  }
}

std::string RingText(const record::Measured<record::RingSizes>& rings) {
  if (!rings.known()) return "ring sizes unknown (" + rings.detail() + ")";
  return fmt::format("rx ring {} of at most {}, tx ring {} of at most {} (ethtool -g)",
                     rings.value().rx, rings.value().rx_max, rings.value().tx,
                     rings.value().tx_max);
}

std::string RxNextStep(const End& end) {
  const auto* rings = end.record->nic.rings.get();
  std::string step;
  if (rings != nullptr && rings->rx < rings->rx_max) {
    step = fmt::format("Raise the receive ring to its maximum: {}. ",
                       Command(end, fmt::format("ethtool -G {{}} rx {}", rings->rx_max)));
  } else if (rings != nullptr) {
    step = "The ring is at its maximum already: the cores do not drain it in time. ";
  } else {
    step = fmt::format("Read the ring sizes with {} and raise rx toward its maximum. ",
                       Command(end, "ethtool -g {}"));
  }
  return step + fmt::format(
                    "Spread the receive work over more queues and cores ({}, IRQ affinity), "
                    "check the receiving core's softirq load, and watch {} during a test.",
                    Command(end, "ethtool -L {} combined N"),
                    Command(end, "ethtool -S {} | grep -E 'miss|no_buf|discard|fifo'"));
}

std::optional<record::Finding> RxRingFinding(const RunView& view, const End& end,
                                             const DriverCounterMoves& m) {
  const uint64_t missed = m.Total(CounterKind::kRxMissed),
                 no_buffer = m.Total(CounterKind::kRxNoBuffer),
                 fifo = m.Total(CounterKind::kRxFifo);
  // e1000e's missed frames and no-buffer events are often the same frames: the larger.
  const uint64_t lost = std::max(missed, no_buffer) + fifo;
  if (lost == 0) return std::nullopt;
  const auto rx = NicCounterSum(view, end, "rx_packets");
  const bool heavy = !rx || *rx <= 0 || lost >= kRingWarningFraction * static_cast<double>(*rx);
  record::Finding f = MakeFinding(
      "nic-ring-overruns", heavy ? Severity::kWarning : Severity::kNotice,
      fmt::format("The NIC's receive ring overran at the {}: {} frames lost before the kernel saw "
                  "them",
                  end.name, lost));
  for (CounterKind kind :
       {CounterKind::kRxMissed, CounterKind::kRxNoBuffer, CounterKind::kRxFifo}) {
    MovedEvidence(end, m, kind, f.evidence);
  }
  if (rx) {
    f.evidence.push_back(fmt::format("{} {}: {} frames received in the counted intervals", end.name,
                                     end.record->nic.interface, *rx));
  }
  f.evidence.push_back(fmt::format("{} {}: {}", end.name, end.record->nic.interface,
                                   RingText(end.record->nic.rings)));
  f.meaning =
      fifo > 0 && missed == 0 && no_buffer == 0
          ? "Frames arrived faster than the NIC could move them to the host: its own packet buffer "
            "overflowed (host DMA or PCIe too slow, or bursts larger than the buffer)."
          : "Frames arrived while the receive ring had no free descriptor: the driver did not "
            "refill it in time, so the NIC dropped them and TCP had to retransmit. A small ring "
            "fills in less time; a busy core refills it late.";
  f.next_step = RxNextStep(end);
  return f;
}

// The sender's transmit ring against the time it holds at line rate.
std::optional<record::Finding> TxRingFinding(const RunView& view, const End& end,
                                             const std::optional<DriverCounterMoves>& m,
                                             const Thresholds& t) {
  const auto& nic = end.record->nic;
  const auto* rings = nic.rings.get();
  const auto* speed = nic.speed_mbps.get();
  const auto* mtu = nic.mtu.get();
  if (!end.sends || rings == nullptr || speed == nullptr || mtu == nullptr || *speed == 0 ||
      rings->tx == 0 || rings->tx >= rings->tx_max) {
    return std::nullopt;
  }
  const double frame_bits = (*mtu + kEthernetWireOverheadBytes) * 8.0;
  const double ring_seconds = rings->tx * frame_bits / (static_cast<double>(*speed) * 1e6);
  if (ring_seconds >= kTxRingMinSeconds) return std::nullopt;
  // Counters that say the ring never filled clear it.
  const uint64_t stops = m ? m->Total(CounterKind::kTxRingFull) : 0;
  if (m && stops == 0) return std::nullopt;
  for (const Flow& flow : view.flows()) {
    if (flow.sender != &end) continue;
    const double line_goodput = *speed * 1e6 * (*mtu - 52) / (*mtu + kEthernetWireOverheadBytes);
    if (flow.bits_per_second >= t.link_limited_fraction * line_goodput) return std::nullopt;
  }
  record::Finding f = MakeFinding(
      "nic-tx-ring-small", Severity::kNotice,
      fmt::format("The transmit ring at the {} holds only {:.2f} ms at line rate ({} descriptors)",
                  end.name, ring_seconds * 1e3, rings->tx));
  f.evidence.push_back(fmt::format("{} {}: {}", end.name, nic.interface, RingText(nic.rings)));
  f.evidence.push_back(fmt::format(
      "{} descriptors x {} bytes a frame on the wire at {} Mbit/s = {:.2f} ms; below {:.0f} ms the "
      "ring runs dry between two completion interrupts",
      rings->tx, *mtu + kEthernetWireOverheadBytes, *speed, ring_seconds * 1e3,
      kTxRingMinSeconds * 1e3));
  if (m)
    MovedEvidence(end, *m, CounterKind::kTxRingFull, f.evidence);
  else
    f.evidence.emplace_back(
        "queue-stop counters unknown (ethtool -S not read at both ends of the test)");
  f.meaning =
      "The driver can queue only a few frames for the NIC: when the ring is full the stack waits "
      "for the completion interrupt, so the link idles between batches and the sender does not "
      "reach line rate.";
  f.next_step = fmt::format("Raise the transmit ring: {}; then compare the two runs.",
                            Command(end, fmt::format("ethtool -G {{}} tx {}", rings->tx_max)));
  return f;
}

}  // namespace

Findings NicRings(const RunView& view, const Thresholds& t) {
  Findings out;
  for (const End* end : view.ends()) {
    if (!HardwareNic(*end)) continue;
    const auto moves = analysis::DriverCounterDeltas(end->record->nic);
    if (moves) {
      if (auto f = RxRingFinding(view, *end, *moves)) out.push_back(std::move(*f));
    }
    if (auto f = TxRingFinding(view, *end, moves, t)) out.push_back(std::move(*f));
  }
  return out;
}

namespace {

// "local client (sender) eth0: flow control rx on, tx on, autoneg on (ethtool -a)": what the NIC
// was set to do with pause frames, or why that is unknown.
std::string PauseSettingsText(const End& end) {
  const auto& nic = end.record->nic;
  const auto* p = nic.pause.get();
  if (p == nullptr) {
    const std::string detail = nic.pause.detail().empty() ? "" : ": " + nic.pause.detail();
    return fmt::format("{} {}: flow control settings unknown ({}{})", end.name, nic.interface,
                       record::MissingName(nic.pause.why()), detail);
  }
  return fmt::format(
      "{} {}: flow control rx {} (stops sending on a pause), tx {} (sends pauses), "
      "autoneg {} (ethtool -a)",
      end.name, nic.interface, p->rx ? "on" : "off", p->tx ? "on" : "off",
      p->autoneg ? "on" : "off");
}

}  // namespace

Findings PauseFrames(const RunView& view, const Thresholds&) {
  Findings out;
  for (const End* end : view.ends()) {
    if (!HardwareNic(*end)) continue;
    const auto m = analysis::DriverCounterDeltas(end->record->nic);
    if (!m) continue;
    const uint64_t got = m->Total(CounterKind::kPauseRx), sent = m->Total(CounterKind::kPauseTx);
    if (got == 0 && sent == 0) continue;
    record::Finding f = MakeFinding(
        "nic-pause-frames", Severity::kNotice,
        fmt::format("Flow control paused the link at the {}: {} pause frames received, {} sent",
                    end->name, got, sent));
    MovedEvidence(*end, *m, CounterKind::kPauseRx, f.evidence);
    MovedEvidence(*end, *m, CounterKind::kPauseTx, f.evidence);
    f.evidence.push_back(PauseSettingsText(*end));
    f.meaning =
        sent > 0
            ? "This NIC ran short of buffer and asked its link partner to stop sending: the host "
              "behind it does not take frames as fast as they arrive (ring, CPU or PCIe)."
            : "The link partner (the switch port or the other NIC) asked this NIC to stop "
              "sending: something after it, another port or the far host, is the bottleneck.";
    f.next_step = fmt::format(
        "See the pause settings with {} and the partner's counters; on the end that sends "
        "pauses look for ring overruns and a saturated core. Turning flow control off ({}) "
        "trades the pauses for drops, which TCP handles worse on some paths.",
        Command(*end, "ethtool -a {}"), Command(*end, "ethtool -A {} rx off tx off"));
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace nicbench::diagnosis
