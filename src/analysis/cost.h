// What moving the data cost one end, per gigabyte (10^9 bytes) moved through that end (both
// directions for a bidirectional test), each part on its own:
// - nicbench's own process time, user and system (getrusage of the end's process);
// - softirq and hard-irq time on the cores that carried the flows (the cores that ran at least
//   5% of the host's NET_RX+NET_TX softirqs, else those that took the NIC's interrupts);
// - the transfer's cost: the sum of those four, the figure compare, matrix and the store use;
// - the NIC's interrupts per gigabyte;
// - the whole host's busy time (all processes), with the share of it the transfer does not
//   account for: above half, other load makes that host-wide figure meaningless.
// Unknown with a reason when the samples or the NIC lines are missing, never 0. On a shared host
// (the stand) both ends see the same cores, so the softirq/irq and host-wide figures are the
// host's, once. Pure functions of the record; thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "analysis/other_traffic.h"
#include "record/measured.h"
#include "record/run_record.h"

namespace nicbench::analysis {

// Which end of the test an EndpointRecord is: the one that connected, or the one that accepted.
using Role = record::Role;

struct EndCost {
  Role role = Role::kClient;
  bool local = true;  // the record's local end, or the peer that reported
  record::Measured<double> process_user_seconds_per_gigabyte;
  record::Measured<double> process_system_seconds_per_gigabyte;
  record::Measured<double> softirq_seconds_per_gigabyte;  // on flow_cores
  record::Measured<double> irq_seconds_per_gigabyte;      // on flow_cores
  std::vector<int> flow_cores;
  // The transfer's CPU-seconds per GB: nicbench's process time plus the softirq and irq time of
  // the flow cores (those two left out when no flow core is known); unknown without process
  // samples.
  record::Measured<double> cpu_seconds_per_gigabyte;
  // Every core's busy time per GB, whatever process it went to.
  record::Measured<double> host_cpu_seconds_per_gigabyte;
  // Interrupts of the NIC's own IRQ lines per GB; unknown on loopback and software devices.
  record::Measured<double> nic_interrupts_per_gigabyte;
  // Share (0..1) of the host's busy time that is neither nicbench's processes nor the softirq
  // and irq time of the flow cores; unset without process or CPU samples.
  std::optional<double> other_load_fraction;
  bool HostFigureMeaningless() const { return other_load_fraction && *other_load_fraction > 0.5; }
  // The share of this end's network namespace's IP traffic that was not the test's
  // (other_traffic.h), and, when it is above kPollutedShare, the evidence in words: then the
  // packet-work figures (softirq, irq, the transfer's cost, NIC interrupts, the whole host's
  // time) are partly other traffic's, and compare leaves them out of its test.
  record::Measured<OtherTraffic> other_traffic;
  std::string polluted;
  // The host's idle share over the counted samples, percent of all its CPUs.
  record::Measured<double> host_idle_percent;
};

// Interrupts per gigabyte as interrupts/s per Gbit/s of goodput (per 10^9 bits): an eighth.
constexpr double InterruptsPerGbit(double per_gigabyte) { return per_gigabyte / 8; }

// The cost of the end in `role`; every figure unknown ("the peer does not report") when that end
// did not report.
EndCost CostOf(const record::RunRecord& run, Role role);
// The local end first, then the remote one when it reported.
std::vector<EndCost> Costs(const record::RunRecord& run);

// True when both ends report one machine (same hostname and CPU count): stand namespaces share
// /proc/stat, so their CPU samples are the same cores seen twice.
bool SharedHost(const record::RunRecord& run);
// The other end's record when both ends share the host (SharedHost), else null. REQUIRES: `end`
// is one of `run`'s ends.
const record::EndpointRecord* SharedPeer(const record::RunRecord& run,
                                         const record::EndpointRecord& end);

}  // namespace nicbench::analysis
