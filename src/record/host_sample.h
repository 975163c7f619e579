// Per-interval measurements of one host while a test runs: CPU per core by kind, interrupts per
// line, NET_RX/NET_TX softirqs, softnet drops, protocol counters and the process's own rusage.
// Filled by the probes layer (delta of two snapshots), carried to the peer by the protocol
// extension, read by diagnosis and report. Plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "record/measured.h"

namespace nicbench::record {

// Share of one interval spent by one CPU in each kind of work, in percent (0..100 each; the
// kinds sum to ~100). From /proc/stat jiffies deltas.
struct CpuShare {
  int cpu = -1;  // -1 = all CPUs together
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  double Busy() const { return 100.0 - idle - iowait; }
};

// One /proc/interrupts line over an interval.
struct IrqRate {
  std::string irq;                // "24", "NMI", "LOC"
  std::string name;               // device/action column, e.g. "eth0-TxRx-3", "virtio0-input.0"
  std::string chip;               // "PCI-MSI", "IO-APIC", "PCI-MSIX-..." when present
  bool nic = false;               // belongs to the NIC under test
  std::string nic_queue;          // queue part of the name when nic, e.g. "TxRx-3", "input.0"
  std::vector<uint64_t> per_cpu;  // count delta per CPU in the interval
  uint64_t total = 0;             // sum of per_cpu
  double per_second = 0;          // total / interval seconds
};

struct SoftnetDelta {
  int cpu = 0;
  uint64_t processed = 0, dropped = 0, time_squeeze = 0;
};

// The process's own resource use over the interval (getrusage deltas), as ttcp reports it.
struct ProcessUsage {
  double user_seconds = 0, system_seconds = 0;
  uint64_t voluntary_switches = 0, involuntary_switches = 0;
  uint64_t minor_faults = 0, major_faults = 0;
  // CPUs the process may run on (sched_getaffinity) at the end of the interval; empty when
  // unknown. Tells which end owns a saturated core when both ends share a host and one is
  // pinned (taskset).
  std::vector<int> allowed_cpus;
  // CPUs the end's threads that used CPU time in the interval were last seen on (/proc/self/
  // task/TID/stat field 39, "processor"), sorted; empty when unknown (getrusage fallback, an
  // older peer). Where nicbench ran, against where the NIC's interrupts were delivered.
  std::vector<int> ran_on_cpus;
};

// nicbench's own threads over the interval, from /proc/self/task/*/schedstat (the kernel's
// sched_info): time on a CPU, and time runnable but waiting on a run queue for one. The wait
// is what tells that another process held this transfer back: a busy host whose other work
// never delays nicbench's threads is not competing with it.
struct RunQueueDelay {
  double on_cpu_seconds = 0;   // summed over the threads
  double waiting_seconds = 0;  // summed over the threads (run-queue delay)
  int threads = 0;             // threads seen in both snapshots or started in between
};

// The queues of the interface that carries the test at the end of an interval (not a delta:
// what was waiting at that moment), for the latency-under-load attribution (docs/latency.md).
struct QueueSample {
  std::string qdisc;  // the root qdisc's kind ("tbf", "pfifo_fast", "noqueue")
  uint64_t backlog_bytes = 0, backlog_packets = 0;
  uint64_t drops = 0;  // the root qdisc's drops since it was made (cumulative)
  // Bytes handed to the device and not yet completed, summed over its transmit queues (byte
  // queue limits, /sys/class/net/IF/queues/tx-N/byte_queue_limits/inflight); unknown where the
  // driver has no BQL (veth, loopback).
  Measured<uint64_t> bql_inflight_bytes;
};

struct HostInterval {
  double start = 0, end = 0;  // seconds since the test started (same clock as throughput)
  Measured<std::vector<CpuShare>> cpus;             // per CPU, index order; cpu=-1 not included
  Measured<CpuShare> cpu_total;                     // all CPUs together
  Measured<std::vector<IrqRate>> irqs;              // lines with a nonzero delta, busiest first
  Measured<std::vector<uint64_t>> net_rx_softirqs;  // per CPU delta
  Measured<std::vector<uint64_t>> net_tx_softirqs;  // per CPU delta
  Measured<std::vector<SoftnetDelta>> softnet;      // per CPU
  Measured<uint64_t> context_switches;              // /proc/stat ctxt delta
  Measured<uint64_t> interrupts;                    // /proc/stat intr total delta
  // Deltas of /proc/net/snmp and /proc/net/netstat counters, keyed "Tcp.RetransSegs",
  // "TcpExt.ListenDrops", "Udp.RcvbufErrors"...; only counters that exist on this kernel.
  Measured<std::map<std::string, int64_t>> net_counters;
  Measured<ProcessUsage> process;
  Measured<RunQueueDelay> run_queue;  // absent from older peers: "not reported by peer"
  // The NIC's error and drop counters (/sys/class/net/IF/statistics: "rx_dropped",
  // "rx_missed_errors", "tx_errors", ... and "rx_packets"/"tx_packets" to compare them with),
  // deltas over the interval; unknown on loopback or when unreadable.
  Measured<std::map<std::string, int64_t>> nic_counters;
  Measured<QueueSample> queues;  // absent from older peers: "not reported by peer"
  // The IPv4 bytes (IpExt InOctets + OutOctets) every network namespace of the host moved over
  // the interval, this end's and the peer's among them when they are on this host: the
  // host-wide measure of other traffic (analysis/other_traffic.h, probes/namespace_bytes.h).
  // Unknown with the reason where it could not be read (/proc hides processes, a container's
  // own PID namespace), and absent from older peers and records, which the packet measure
  // stands in for.
  Measured<uint64_t> host_ip_bytes;
};

}  // namespace nicbench::record
