// Where one end's work ran, against where its NIC sits: the NIC's NUMA node and local CPUs, the
// CPUs that took the NIC's interrupts and the network softirqs, and the CPUs nicbench's own
// threads ran on, over the end's counted samples. Read by the placement findings. Pure
// functions of the record; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "record/run_record.h"

namespace nicbench::analysis {

// "0-7,16-23" (local_cpulist, smp_affinity_list) as CPU numbers, ascending; nullopt when the
// text is not a CPU list. (probes has the same parser; analysis links only record.)
std::optional<std::vector<int>> CpusOfList(std::string_view text);
// The CPU numbers as a list again: {0,1,2,3,8} -> "0-3,8".
std::string CpuListText(const std::vector<int>& cpus);

struct Placement {
  std::optional<int> numa_node;  // the NIC's node; unset when unknown (-1, not PCI, no file)
  std::vector<int> local_cpus;   // the NIC's local CPUs; empty when unknown
  int host_cpus = 0;             // CPUs seen in the samples (per-CPU shares or softirq columns)
  // Over the counted samples:
  std::vector<uint64_t> softirqs_per_cpu;  // NET_RX + NET_TX
  uint64_t softirqs = 0;
  std::vector<uint64_t> nic_irqs_per_cpu;  // the NIC's own lines
  uint64_t nic_irqs = 0;
  std::map<int, int> ran_on;  // CPU -> counted samples in which nicbench's threads ran there
  int ran_on_samples = 0;     // counted samples that say where nicbench ran

  // The NIC sits on one node of several: its local CPUs are known and leave some CPUs out.
  bool MultiNode() const;
  bool IsLocal(int cpu) const;
};
Placement PlacementOf(const record::RunRecord& run, const record::EndpointRecord& end);

}  // namespace nicbench::analysis
