// Pure parsers of the /proc files the probes read. Each takes the file's text and returns the
// counters as plain values, or an Error naming what did not parse. No I/O, no allocation beyond
// the result; thread-safe. Formats accepted are the ones seen on real kernels from 2.6.18 to
// 6.x (fixtures in tests/testdata, sources in tests/testdata/README.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace nicbench::probes {

// ---- /proc/stat -------------------------------------------------------------------------

// Jiffies (USER_HZ ticks) of one "cpu" line, by kind. Kernels before 2.6.11 have no steal
// column and before 2.6.24 no guest: has_steal / has_guest say which columns were present.
// Note that the kernel already counts guest time inside user (and guest_nice inside nice), so
// Total() leaves guest out.
struct CpuJiffies {
  int cpu = -1;  // -1: the aggregate "cpu" line
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0;
  uint64_t steal = 0, guest = 0, guest_nice = 0;
  bool has_steal = false, has_guest = false;
  uint64_t Total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
};

struct ProcStat {
  CpuJiffies total;
  std::vector<CpuJiffies> cpus;        // in file order (offline CPUs are not listed)
  std::optional<uint64_t> ctxt;        // context switches since boot
  std::optional<uint64_t> intr_total;  // first number of the "intr" line
};

Result<ProcStat> ParseProcStat(std::string_view text);

// ---- /proc/interrupts -------------------------------------------------------------------

// One line. Numeric lines ("24:") carry a chip ("IO-APIC", "PCI-MSI", "IR-PCI-MSI-edge" on
// older kernels that join chip and trigger, "PCI-MSIX-0000:00:03.0"), the hardware irq and
// trigger ("5-edge", or on older kernels nothing) and the action names ("eth0-TxRx-0", or
// "uhci_hcd:usb4, radeon" when shared). Named lines ("LOC", "NMI", "ERR") have a description in
// `name` and no chip; ERR and MIS have a single count.
struct InterruptLine {
  std::string irq;                // "24", "LOC"
  std::vector<uint64_t> per_cpu;  // counts since boot; may be shorter than the CPU count
  std::string chip;               // empty on named lines
  std::string hwirq;              // "5-edge", "3145728-edge", "27 Level"; may be empty
  std::string name;               // action / device names, or the description of named lines
  bool numeric = false;           // irq is a number
  uint64_t Total() const;
};

struct Interrupts {
  int cpu_count = 0;         // columns in the header ("CPU0 CPU1 ...")
  std::vector<int> cpu_ids;  // the N of each "CPUN" header column
  std::vector<InterruptLine> lines;
};

Result<Interrupts> ParseInterrupts(std::string_view text);

// ---- /proc/softirqs ---------------------------------------------------------------------

struct Softirqs {
  int cpu_count = 0;
  std::vector<uint64_t> net_rx, net_tx;  // per CPU column; empty when the row is missing
};

Result<Softirqs> ParseSoftirqs(std::string_view text);

// ---- /proc/net/softnet_stat -------------------------------------------------------------

// One row (one online CPU). Columns are hex. 2.6.x has 9 columns (processed, dropped,
// time_squeeze, 5 zeros, cpu_collision); 2.6.36 adds received_rps (10), 3.11 flow_limit_count
// (11), 5.10 backlog length and the CPU index (13), 6.x input/process queue lengths (15).
struct SoftnetRow {
  int cpu = 0;  // column 12 when present, else the row's position
  uint64_t processed = 0, dropped = 0, time_squeeze = 0;
  std::optional<uint64_t> received_rps, flow_limit_count;
  int columns = 0;
};

Result<std::vector<SoftnetRow>> ParseSoftnetStat(std::string_view text);

// ---- /proc/net/snmp and /proc/net/netstat -----------------------------------------------

// Both files are pairs of lines "Tcp: Name1 Name2 ..." / "Tcp: v1 v2 ...". The result maps
// "Tcp.RetransSegs" to its value. Values are signed (Tcp.MaxConn is -1).
Result<std::map<std::string, int64_t>> ParseSnmp(std::string_view text);

// ---- /proc/cpuinfo ----------------------------------------------------------------------

// The first "model name" (x86), else "Processor" or "cpu model" (older ARM, MIPS); Error when
// none is present.
Result<std::string> ParseCpuModel(std::string_view text);

// ---- /proc/PID/task/TID/schedstat ---------------------------------------------------------

// "RUN_NS WAIT_NS TIMESLICES": time on a CPU, time runnable on a run queue (both ns, since the
// thread started), timeslices run (kernel/sched/stats.c, proc_schedstat; CONFIG_SCHED_INFO).
struct SchedStat {
  uint64_t run_ns = 0, wait_ns = 0, timeslices = 0;
};

Result<SchedStat> ParseSchedstat(std::string_view text);

// ---- ethtool -S ----------------------------------------------------------------------------

// `ethtool -S IF` text: an optional "NIC statistics:" header, then "name: value" per line,
// indented or not. The name is everything before the line's last ": " (bnx2x and bnxt_en name
// per-queue counters "[3]: rx_discards", be2net "rxq3: rx_pkts"). A name the driver repeats
// keeps its first value, as the ioctl reader does. Lines that are not "name: number" are
// skipped; Error when no line is.
Result<std::map<std::string, uint64_t>> ParseEthtoolStatistics(std::string_view text);

// ---- CPU lists ("0-3,8,10-11" as in /sys/devices/system/cpu/online, smp_affinity_list) --

Result<std::vector<int>> ParseCpuList(std::string_view text);

}  // namespace nicbench::probes
