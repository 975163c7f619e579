// The terminal report: iperf3-style interval and summary lines, plus what iperf3 does not show:
// for each end the busiest core and the kind of work that filled it, interrupt rates, drops,
// CPU cost per byte and the NIC facts that matter, then the findings. Explained line by line in
// docs/output.md. Rendering is pure (record in, text out); thread-safe.
#pragma once

#include <string>
#include <vector>

#include "analysis/directions.h"
#include "record/run_record.h"

namespace nicbench::report {

// The column header printed once before the first interval, e.g.
// "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n".
std::string RenderIntervalHeader(const record::RunRecord& run);

// The lines iperf3 prints as soon as the streams are connected: "Connecting to host H, port
// P" and one "[ ID] local A port a connected to B port b" per stream; with `verbose` (-V),
// iperf3's "Starting Test: ..." line too.
std::string RenderConnectedLines(const record::RunRecord& run, bool verbose);

// One interval: a line per stream, a [SUM] line per direction when there are several streams,
// then one compact line per end whose sample is given (nullptr: no line), e.g.
//   "[  1]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec    2   14.1 KBytes\n"
//   "       local  cpu1 97% si | nic irq 16.0k/s | irq 16.5k/s | retr 4 | drops 2\n"
// Every line ends with '\n'. A separator line comes first when there are several streams and
// this is not the first interval, as iperf3 prints it.
std::string RenderIntervalLine(const record::RunRecord& run, const record::IntervalRecord& interval,
                               const record::HostInterval* local,
                               const record::HostInterval* remote);

// One end's compact line alone ("      remote  cpu1 97% si | ..."), for a live sample that
// arrives after its interval was printed.
std::string RenderHostLine(const char* who, const record::HostInterval& sample);

// The end of a test: iperf3's sender/receiver lines per stream and [SUM]; for each end the CPU
// cost per KB by kind (netperf's service demand), busiest cores, top interrupt lines, drops and
// NIC facts (unknowns as "unknown (reason)"); then the findings, most severe first, or
// "No problems found.". Starts with "error: ..." when the record carries an error.
std::string RenderSummary(const record::RunRecord& run);

// -V after the summary: iperf3's CPU utilization and congestion control lines
// ("CPU Utilization: local/sender ...", "snd_tcp_congestion cubic"), each end named by its duty.
std::string RenderVerboseSummary(const record::RunRecord& run);

// After the main job's or --both-directions' two summaries: one table of the two directions side
// by side (analysis::CompareDirections' rows: figure, unit, forward, reverse; an unknown cell is
// "unknown [N]" with reason N listed under the table), then the findings that need both
// directions (diagnosis::DiagnosePair), or a line saying there are none. Starts with a blank line.
std::string RenderDirections(const std::vector<analysis::DirectionRow>& rows,
                             const std::vector<record::Finding>& pair_findings);

// pciconf-style lines of a NIC's PCI identity: "card=1af4:1041 class=0200 (Ethernet
// controller) rev=01", "link x4(x8) speed 5.0(8.0) GT/s", "MSI-X 64 messages, enabled with 64".
std::string PciCardText(const record::PciIdentity& pci);
std::string PciLinkText(const record::Measured<record::PciLinkState>& link);
std::string PciIrqCapText(const char* name, const record::Measured<record::PciInterruptCap>& cap);

}  // namespace nicbench::report
