// Internal to diagnosis: the rule functions. Each reads the view and returns zero or more
// findings (per end or per flow); none has side effects. diagnose.cc holds the table that runs
// them; docs/diagnosis.md describes each one.
#pragma once

#include <string>
#include <vector>

#include "diagnosis/diagnose.h"
#include "diagnosis/run_view.h"

namespace nicbench::diagnosis {

using Findings = std::vector<record::Finding>;
using RuleFn = Findings (*)(const RunView&, const Thresholds&);

record::Finding MakeFinding(std::string id, record::Severity severity, std::string title);

// rules_link.cc
Findings LinkRateLimited(const RunView& view, const Thresholds& t);
// UDP paced (-b) above the goodput the link carries.
Findings UdpOfferedAboveLink(const RunView& view, const Thresholds& t);
// Runs after the others: goodput far below the link with no warning that explains it.
Findings FarBelowLinkRate(const RunView& view, const Thresholds& t, const Findings& so_far);

// rules_cpu.cc
Findings CpuBound(const RunView& view, const Thresholds& t);
Findings ToolCpuBound(const RunView& view, const Thresholds& t);

// rules_irq.cc
Findings IrqConcentration(const RunView& view, const Thresholds& t);
Findings CostPerEnd(const RunView& view, const Thresholds& t);

// rules_placement.cc: the NIC's NUMA node and interrupt core against where the work ran.
Findings NumaPlacement(const RunView& view, const Thresholds& t);
Findings IrqCoreSharedWithApp(const RunView& view, const Thresholds& t);

// rules_frequency.cc: the busiest core slowed by its frequency governor.
Findings CpuFrequencyLow(const RunView& view, const Thresholds& t);

// rules_tcp.cc
Findings Retransmissions(const RunView& view, const Thresholds& t);
Findings UdpLoss(const RunView& view, const Thresholds& t);
Findings Drops(const RunView& view, const Thresholds& t);
// rules_nic_drops.cc
Findings NicDrops(const RunView& view, const Thresholds& t);
Findings WindowLimited(const RunView& view, const Thresholds& t);

// rules_nic_ring.cc: the driver's ring, buffer and pause counters moving during the test.
Findings NicRings(const RunView& view, const Thresholds& t);
Findings PauseFrames(const RunView& view, const Thresholds& t);
// rules_nic_irq.cc
Findings NicInterruptCost(const RunView& view, const Thresholds& t);
Findings IrqHandlerLivelock(const RunView& view, const Thresholds& t);
// rules_nic_queues.cc
Findings QueueImbalance(const RunView& view, const Thresholds& t);
Findings PcieLinkDegraded(const RunView& view, const Thresholds& t);
// rules_drop_ladder.cc
Findings DropLadder(const RunView& view, const Thresholds& t);

// rules_latency.cc: run --under-load, the added latency and the queue it sits in.
Findings Bufferbloat(const RunView& view, const Thresholds& t);

// rules_config.cc
Findings OffloadsOff(const RunView& view, const Thresholds& t);
Findings MtuMismatch(const RunView& view, const Thresholds& t);
Findings HalfDuplex(const RunView& view, const Thresholds& t);
Findings LinkBelowCapability(const RunView& view, const Thresholds& t);
Findings LegacyIrqMode(const RunView& view, const Thresholds& t);

// rules_file.cc: -F, the disk's rate against the network's.
Findings FileTransferLimit(const RunView& view, const Thresholds& t);

// rules_measurement.cc
Findings TestTooShort(const RunView& view, const Thresholds& t);
Findings IntervalsVary(const RunView& view, const Thresholds& t);
Findings RemoteNotReported(const RunView& view, const Thresholds& t);

// rules_rr.cc: request/response tests only (Diagnose runs kRrRules for them).
Findings RrCoreSaturated(const RunView& view, const Thresholds& t);
Findings RrInterruptCoalescing(const RunView& view, const Thresholds& t);
Findings RrLossAndCounts(const RunView& view, const Thresholds& t);
// --rr-spin with at least as many polling threads as the cores they share.
Findings RrSpinBackfires(const RunView& view, const Thresholds& t);

}  // namespace nicbench::diagnosis
