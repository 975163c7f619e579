// CPU rules: an end whose core saturates (and with what), and nicbench itself at its limit.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "diagnosis/link.h"
#include "diagnosis/rules.h"
#include "diagnosis/saturation.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

std::string CpuListText(const std::vector<int>& cpus) {
  std::string out;
  for (int c : cpus) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

// When both ends share one host, the same cores appear in both ends' samples. If one end is
// confined to fewer CPUs than the other and the saturated core is among them (pinned with
// taskset, say), that end owns the core. Otherwise the sender's TCP_INFO tells which end could
// not keep up: a sender held back by the receive window has a receiver that does not read fast
// enough.
const End* Attribute(const RunView& view, const End& analysed, int core, const Thresholds& t,
                     std::vector<std::string>& evidence) {
  if (!view.SharedHost()) return &analysed;
  std::string host = view.run().local.host.hostname.value();
  const End* owner = nullptr;
  size_t owner_cpus = 0;
  bool tie = false, known = true;
  std::string pins;
  for (const End* end : view.ends()) {
    std::vector<int> allowed = analysis::AllowedCpus(view.run(), *end->record);
    known = known && !allowed.empty();
    pins += fmt::format("{}{} may run on cpu {}", pins.empty() ? "" : "; ", end->name,
                        CpuListText(allowed));
    if (std::find(allowed.begin(), allowed.end(), core) == allowed.end()) continue;
    if (owner == nullptr || allowed.size() < owner_cpus) {
      tie = false;
      owner = end;
      owner_cpus = allowed.size();
    } else if (allowed.size() == owner_cpus) {
      tie = true;
    }
  }
  if (known && owner != nullptr && !tie) {
    evidence.push_back(fmt::format("both ends run on one host ({}); {}: cpu{} belongs to the {}",
                                   host, pins, core, owner->name));
    return owner;
  }
  if (view.flows().size() != 1 || !view.flows()[0].tcp || view.flows()[0].tcp->busy_us == 0) {
    evidence.push_back(fmt::format(
        "both ends run on one host ({}), so their CPU samples are the same cores; no sender "
        "TCP_INFO tells which end is short of CPU",
        host));
    return nullptr;
  }
  const Flow& flow = view.flows()[0];
  double rwnd = static_cast<double>(flow.tcp->rwnd_limited_us) / flow.tcp->busy_us;
  const End* end = rwnd >= t.window_limited_fraction ? flow.receiver : flow.sender;
  evidence.push_back(fmt::format(
      "both ends run on one host ({}); the sender's TCP_INFO shows it limited by the "
      "receive window {:.0f}% of its busy time, so the {} is the end that cannot keep up",
      host, rwnd * 100, rwnd >= t.window_limited_fraction ? "receiver" : "sender"));
  return end;
}

std::string CpuId(const End* end) {
  if (end == nullptr || (end->sends && end->receives)) return "cpu-bound";
  return end->sends ? "sender-cpu-bound" : "receiver-cpu-bound";
}

std::string NextStep(const CoreSaturation& cpu, bool competes) {
  if (competes) {
    return fmt::format(
        "Find what else runs on cpu{} (top -H, pidstat -u 1) and stop or move it "
        "(taskset, cgroup cpusets), or pin nicbench to an idle core; then repeat.",
        cpu.core);
  }
  if (cpu.irq + cpu.softirq >= cpu.user + cpu.system) {
    return "Spread the packet work: more NIC queues (ethtool -L) with RSS, IRQ affinity "
           "(/proc/irq/N/smp_affinity_list) over idle cores, RPS; turn on GRO/TSO and "
           "interrupt coalescing (ethtool -C).";
  }
  return "Make each byte cheaper or use more cores: TSO/GSO/GRO on, larger -l, -Z (sendfile) "
         "on the sender or --skip-rx-copy on the receiver, or -P 2..4 streams.";
}

// The run-queue wait of the end that owns the core (or the longer of both ends' when it is
// not known which), the evidence that competition held this transfer back.
std::optional<double> OwnerWait(const RunView& view, const End* owner, const End& analysed) {
  if (owner != nullptr) return analysis::MeanRunQueueWait(view.run(), *owner->record);
  std::optional<double> longest;
  for (const End* e : view.ends()) {
    auto w = analysis::MeanRunQueueWait(view.run(), *e->record);
    if (w && (!longest || *w > *longest)) longest = w;
  }
  return longest ? longest : analysis::MeanRunQueueWait(view.run(), *analysed.record);
}

// What the saturated core's other work means for this transfer.
enum class Contention {
  kNone,         // the core is busy with nicbench's own work (and the kernel's for it)
  kHeldBack,     // other processes took part of it AND nicbench's threads waited for a CPU,
                 // or the hypervisor stole it
  kNotHeldBack,  // other processes took part of it, but nicbench never waited: their work
                 // did not delay this transfer, so the saturation is not its limit
};

// One interval of the saturated core. Busy time alone is no evidence: a host may be busy with
// work that never delays this transfer; the run-queue delay of nicbench's own threads is.
// `wait` and `own_percent` (nicbench's CPU time, percent of one core) are those of the end
// that owns the core in that interval.
Contention JudgeInterval(const analysis::CoreInterval& ci, const std::optional<double>& wait,
                         const std::optional<double>& own_percent, const Thresholds& t) {
  if (ci.steal >= t.competitor_percent) return Contention::kHeldBack;
  if (ci.CompetitorPercent() < t.competitor_percent) return Contention::kNone;
  if (!wait) return Contention::kNotHeldBack;
  if (*wait >= t.run_queue_wait_fraction) return Contention::kHeldBack;
  if (own_percent && *wait >= t.run_queue_wait_floor &&
      *wait >= t.run_queue_wait_share * (*wait + *own_percent / 100.0)) {
    return Contention::kHeldBack;
  }
  return Contention::kNotHeldBack;
}

// How the counted intervals were judged: `held` back by other processes, or with other
// processes on the core that did `not_held` nicbench back, of `counted`.
struct Verdicts {
  int held = 0, not_held = 0, counted = 0;
};

// Each interval judged with the owner's figures in it (`owner` null: the longer of both ends'
// waits, as OwnerWait). An interval where the core was not saturated holds nothing.
Verdicts JudgeIntervals(const CoreSaturation& cpu, const End* owner, const End& analysed,
                        const Thresholds& t) {
  static const std::optional<double> kUnknown;
  Verdicts v;
  for (const analysis::CoreInterval& ci : cpu.intervals) {
    ++v.counted;
    if (!ci.saturated) continue;
    // Pointers to the interval's own figures (copies of optionals tripped g++ 12's
    // maybe-uninitialized warning).
    const std::optional<double>* wait = &ci.wait;
    const std::optional<double>* own = &ci.process;
    if (owner == nullptr) {
      if (ci.peer_wait && (!ci.wait || *ci.peer_wait > *ci.wait)) wait = &ci.peer_wait;
      own = &kUnknown;
    } else if (owner != &analysed) {
      wait = &ci.peer_wait;
      own = &ci.peer_process;
    }
    const Contention c = JudgeInterval(ci, *wait, *own, t);
    v.held += c == Contention::kHeldBack ? 1 : 0;
    v.not_held += c == Contention::kNotHeldBack ? 1 : 0;
  }
  return v;
}

// The run's verdict needs the condition in most counted intervals: a few intervals in which
// another process took the core (the run's means moved past the thresholds by them) made
// findings flip between runs of one command.
Contention Judge(const Verdicts& v) {
  if (2 * v.held > v.counted) return Contention::kHeldBack;
  if (2 * (v.held + v.not_held) > v.counted) return Contention::kNotHeldBack;
  return Contention::kNone;
}

std::string WaitEvidence(const std::string& who, std::optional<double> wait) {
  if (!wait) {
    return "nicbench's run-queue delay was not sampled (/proc/self/task/*/schedstat): whether "
           "other processes held it back cannot be judged";
  }
  return fmt::format(
      "nicbench's threads at the {} waited for a CPU {:.0f} ms per second "
      "(run-queue delay, /proc/self/task/*/schedstat)",
      who, *wait * 1000);
}

// `competes` is set to whether the finding blames a competing process; nullopt when other
// processes filled the core without holding this transfer back.
std::optional<record::Finding> CpuFinding(const RunView& view, const End& analysed,
                                          const CoreSaturation& cpu, const Thresholds& t,
                                          bool& competes) {
  std::vector<std::string> evidence;
  const End* end = Attribute(view, analysed, cpu.core, t, evidence);
  // Title and evidence name the same end: the one that owns the core (on a shared host the
  // samples are the same cores whichever end took them).
  const End& named = end ? *end : analysed;
  const std::string who = end ? end->name : "both ends (one host)";
  const std::optional<double> wait = OwnerWait(view, end, analysed);
  const Verdicts verdicts = JudgeIntervals(cpu, end, analysed, t);
  const Contention contention = Judge(verdicts);
  if (contention == Contention::kNotHeldBack) return std::nullopt;
  competes = contention == Contention::kHeldBack;
  std::string title =
      fmt::format("{} CPU-bound: cpu{} saturated, mostly {}", who, cpu.core, DominantKind(cpu));
  if (competes) {
    title = fmt::format("{} CPU-bound: cpu{} saturated and other processes take ~{:.0f}% of it",
                        who, cpu.core, cpu.CompetitorPercent());
  }
  record::Finding f = MakeFinding(CpuId(end), Severity::kWarning, title);
  f.evidence.push_back(fmt::format("{}, {}: {} in {} of {} intervals", named.name,
                                   IntervalText(cpu.start, cpu.end), CoreText(cpu), cpu.saturated,
                                   cpu.samples));
  f.evidence.insert(f.evidence.end(), evidence.begin(), evidence.end());
  if (auto own = analysis::MeanProcessPercent(view.run(), *named.record)) {
    f.evidence.push_back(
        fmt::format("nicbench at the {} used {:.0f}% of one core on average", named.name, *own));
  } else {
    f.evidence.emplace_back("nicbench's own CPU use was not sampled: competition cannot be judged");
  }
  f.evidence.push_back(WaitEvidence(named.name, wait));
  if (competes) {
    f.evidence.push_back(fmt::format(
        "other processes held nicbench back in {} of {} intervals (took >= {:.0f}% of the core "
        "while its threads waited for a CPU)",
        verdicts.held, verdicts.counted, t.competitor_percent));
  }
  if (cpu.others_percent) {
    f.evidence.push_back(
        fmt::format("other processes on that host used ~{:.0f}% of one core (user+system time not "
                    "accounted for by nicbench)",
                    *cpu.others_percent));
  }
  f.meaning = competes
                  ? "The core that runs the stream is shared: nicbench gets only part of it and "
                    "its threads wait for a CPU, so the transfer is limited by a competing "
                    "process, not by the path."
                  : fmt::format(
                        "One core does all the work of this stream and has no time left: "
                        "the end cannot move bytes faster, whatever the link could carry. "
                        "The work is mostly {}.",
                        DominantKind(cpu));
  f.next_step = NextStep(cpu, competes);
  return f;
}

record::Finding SoftwarePathNote(const End& end, const CoreSaturation& cpu) {
  record::Finding f = MakeFinding("cpu-bound-software-path", Severity::kInfo,
                                  "CPU-bound, as every loopback or unshaped veth transfer is");
  f.evidence.push_back(fmt::format("{}, {}: {} in {} of {} intervals", end.name,
                                   IntervalText(cpu.start, cpu.end), CoreText(cpu), cpu.saturated,
                                   cpu.samples));
  if (cpu.process_percent) {
    f.evidence.push_back(
        fmt::format("nicbench at the {} used {:.0f}% of one core", end.name, *cpu.process_percent));
  }
  f.meaning =
      "No wire limits this path: the kernel moves bytes as fast as a core can copy and "
      "process them, so the figure measures this host's CPU and memory, not a NIC.";
  f.next_step =
      "To measure a link, test across a real NIC or a shaped test stand "
      "(nicbench stand up --profile 1000baseT).";
  return f;
}

}  // namespace

// True when every flow whose ceiling is known runs at it (at least one does): such a transfer
// is held back by nothing, whatever else the host is doing.
bool AtCeiling(const RunView& view, const Thresholds& t) {
  bool any = false;
  for (const Flow& flow : view.flows()) {
    if (flow.bits_per_second <= 0) continue;
    auto limit = FlowLinkLimit(view, flow, nullptr);
    if (!limit) continue;
    if (flow.bits_per_second < t.link_limited_fraction * limit->goodput_bits_per_second) {
      return false;
    }
    any = true;
  }
  return any;
}

Findings CpuBound(const RunView& view, const Thresholds& t) {
  Findings out;
  if (AtCeiling(view, t)) return out;
  bool software = view.UnshapedSoftwarePath();
  for (const End* end : view.ends()) {
    if (view.SharedHost() && !end->local) continue;  // the same cores, analysed once
    CoreSaturation cpu = CoreSaturationAt(view, *end, t);
    if (!Saturated(cpu, t)) continue;
    bool competes = false;
    std::optional<record::Finding> f = CpuFinding(view, *end, cpu, t, competes);
    if (!f) continue;
    if (software && !competes) {
      if (out.empty()) out.push_back(SoftwarePathNote(*end, cpu));
      continue;
    }
    out.push_back(std::move(*f));
  }
  return out;
}

Findings ToolCpuBound(const RunView& view, const Thresholds& t) {
  Findings out;
  // On an unshaped software path nicbench at 100% is the expected state (see CpuBound).
  if (view.UnshapedSoftwarePath()) return out;
  int streams = 0;
  for (const Flow& flow : view.flows()) streams += std::max(flow.streams, 1);
  for (const End* end : view.ends()) {
    int cpus = end->record->host.cpu_count.value_or(streams);
    double limit = t.tool_cpu_percent * std::max(1, std::min(streams, cpus));
    auto samples = view.Samples(*end);
    int counted = 0, over = 0;
    std::vector<double> use;
    for (const auto* s : samples) {
      auto p = analysis::ProcessPercent(*s);
      if (!p) continue;
      ++counted;
      use.push_back(*p);
      if (*p >= limit) ++over;
    }
    // Most of the counted intervals, as the CPU rule (saturation.h).
    if (counted == 0 || over <= t.saturated_interval_fraction * counted) continue;
    record::Finding f = MakeFinding(
        "measurement-tool-cpu-bound", Severity::kWarning,
        fmt::format("Measurement suspect: nicbench itself uses {:.0f}% of a core at the {}",
                    Mean(use), end->name));
    f.evidence.push_back(fmt::format(
        "{}: process CPU (user+system, getrusage) >= {:.0f}% in {} of {} intervals, mean {:.0f}%",
        end->name, limit, over, counted, Mean(use)));
    f.meaning = "The figure may be the limit of nicbench's threads rather than of the path.";
    f.next_step =
        "Repeat with more streams (-P 2..4), -Z (sendfile) on the sender or "
        "--skip-rx-copy on the receiver, and compare.";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace nicbench::diagnosis
