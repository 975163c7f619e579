// Request/response rules (docs/rr.md, docs/diagnosis.md): what a transaction waits on. A bulk
// test's rules (link rate, window, goodput far below the link) do not apply to these tests, so
// Diagnose runs this table instead of theirs for a spec with --rr/--crr.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/host_figures.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

// A core this busy on average over the counted intervals is saturated.
constexpr double kSaturatedBusyPercent = 90.0;
// Coalescing counts when its wait (once per direction) is at least this share of the median.
constexpr double kCoalescingShare = 0.25;

// The busiest core of an end over its counted samples: (cpu, mean busy percent).
std::optional<std::pair<int, double>> BusiestCore(const RunView& view, const End& end) {
  const std::vector<analysis::CoreLoad> top = analysis::BusiestCores(view.Samples(end), 1);
  if (top.empty()) return std::nullopt;
  return std::make_pair(top[0].cpu, top[0].busy_percent);
}

const record::RrStats* Totals(const RunView& view) {
  return view.run().rr ? &view.run().rr->local : nullptr;
}

// The CPUs an end's threads may run on: its affinity when a process sample says (taskset),
// else the host's online CPUs; empty when neither is known. CPU numbers from 0.
std::set<int> AllowedCpus(const RunView& view, const End& end) {
  for (const record::HostInterval* s : view.Samples(end)) {
    const auto* p = s->process.get();
    if (p != nullptr && !p->allowed_cpus.empty()) {
      return {p->allowed_cpus.begin(), p->allowed_cpus.end()};
    }
  }
  std::set<int> all;
  const auto& count = end.record->host.cpu_count;
  for (int cpu = 0; count.known() && cpu < count.value(); ++cpu) all.insert(cpu);
  return all;
}

// Polling threads against the cores they may use: one group per host (both ends together when
// they share one, each end alone otherwise).
constexpr int kMostWorkers = 4096;

struct PollerGroup {
  int pollers = 0;
  std::set<int> cpus;
  std::vector<std::string> evidence;
};

std::vector<PollerGroup> PollerGroups(const RunView& view) {
  std::vector<PollerGroup> groups;
  const bool shared = view.SharedHost();
  for (const End* end : view.ends()) {
    // A peer's record says how many: bounded (the engine runs at most one worker per flow, and
    // -P is at most 2048), so a hostile count cannot overflow the sum below.
    const int workers = std::min(end->record->worker_threads, kMostWorkers);
    if (workers <= 0) continue;  // an older peer: not reported
    if (groups.empty() || !shared) groups.emplace_back();
    PollerGroup& g = groups.back();
    const std::set<int> cpus = AllowedCpus(view, *end);
    g.pollers += workers;
    g.cpus.insert(cpus.begin(), cpus.end());
    g.evidence.push_back(fmt::format("{}: {} polling worker thread(s), may run on {} CPU(s)",
                                     end->name, workers, cpus.size()));
  }
  return groups;
}

}  // namespace

// Under --rr-spin every worker thread polls for the whole test. When the polling threads take
// every core (both ends count on one host), whatever else must run (the other end's poller,
// the controllers, softirq, other processes) preempts a poller, and the waits that spin in
// vain then sleep as well: on the 2-vCPU build VM, one flow (a poller per end on two CPUs) fell
// from 130,507 to 6,738 transactions/s (p50 5.2 to 106 us); issue 27 item 5 saw 38,147 to 5,987.
Findings RrSpinBackfires(const RunView& view, const Thresholds&) {
  Findings out;
  const record::RrStats* rr = Totals(view);
  const uint32_t spin_us = view.run().spec.rr.spin_us;
  if (rr == nullptr || spin_us == 0) return out;
  for (const PollerGroup& g : PollerGroups(view)) {
    const int cores = static_cast<int>(g.cpus.size());
    if (cores == 0 || g.pollers < cores) continue;
    record::Finding f = MakeFinding(
        "rr-spin-backfires", Severity::kWarning,
        fmt::format("--rr-spin backfires: {} polling threads on {} core(s), none left for the rest",
                    g.pollers, cores));
    f.evidence = g.evidence;
    if (view.SharedHost()) {
      f.evidence.emplace_back("both ends run on one host: their pollers share its cores");
    }
    std::string p50 = "unknown";
    if (rr->latency && rr->latency->count > 0) {
      p50 = fmt::format("{:.1f} us{}", rr->latency->p50_us,
                        rr->latency->p50_us > spin_us ? ", longer than the spin: most waits "
                                                        "spun in vain, then slept"
                                                      : "");
    }
    f.evidence.push_back(fmt::format("{:.0f} transactions/s, median {} (--rr-spin {} us)",
                                     record::TransactionsPerSecond(*rr), p50, spin_us));
    f.meaning =
        "A polling thread holds its core for the whole test; with no core left, the other "
        "end's poller, the controllers and the kernel's packet work wait for a poller to be "
        "preempted, so the spin adds waits instead of removing them. The rate measures the "
        "scheduler, not the path; the same test without --rr-spin is the one to compare.";
    f.next_step =
        "Drop --rr-spin, or give each poller its own core with one to spare: fewer flows or "
        "--threads, or the ends on separate hosts.";
    out.push_back(std::move(f));
  }
  return out;
}

Findings RrCoreSaturated(const RunView& view, const Thresholds&) {
  Findings out;
  const record::RrStats* rr = Totals(view);
  // Under --rr-spin each end keeps its core busy polling on purpose: a busy core is not a sign.
  if (rr == nullptr || view.run().spec.rr.spin_us != 0) return out;
  for (const End* end : view.ends()) {
    auto core = BusiestCore(view, *end);
    if (!core || core->second < kSaturatedBusyPercent) continue;
    const bool receiver = !end->client;  // the server receives the requests
    record::Finding f =
        MakeFinding("rr-core-saturated", Severity::kWarning,
                    fmt::format("The {}'s core {} is saturated: transactions wait for CPU",
                                end->name, core->first));
    f.evidence.push_back(
        fmt::format("{}: cpu{} busy {:.0f}% on average over the counted "
                    "intervals",
                    end->name, core->first, core->second));
    f.evidence.push_back(fmt::format("{:.0f} transactions/s over {} flow(s)",
                                     record::TransactionsPerSecond(*rr), view.run().spec.parallel));
    if (view.SharedHost()) {
      f.evidence.emplace_back("both ends run on one host: these are the same cores for both");
    }
    f.meaning = fmt::format(
        "The {} cannot turn transactions around any faster on that core; "
        "the rate measures its CPU, not the path.",
        receiver ? "receiver of the requests (server)" : "client");
    f.next_step =
        "Spread flows over more cores (-P with --threads), move the NIC's interrupts "
        "off that core, or compare the service demand (CPU per transaction) with "
        "another run.";
    out.push_back(std::move(f));
    if (view.SharedHost()) break;  // the same cores: once is enough
  }
  return out;
}

Findings RrInterruptCoalescing(const RunView& view, const Thresholds&) {
  Findings out;
  const record::RrStats* rr = Totals(view);
  if (rr == nullptr || !rr->latency || rr->latency->count == 0) return out;
  double wait_us = 0;
  std::vector<std::string> evidence;
  for (const End* end : view.ends()) {
    const auto* c = end->record->nic.coalescing.get();
    if (c == nullptr || c->adaptive_rx || c->rx_usecs == 0) continue;
    wait_us += c->rx_usecs;
    evidence.push_back(fmt::format("{}: {} rx-usecs {} (ethtool -c)", end->name,
                                   end->record->nic.interface, c->rx_usecs));
  }
  const double p50 = rr->latency->p50_us;
  if (wait_us <= 0 || wait_us < kCoalescingShare * p50) return out;
  record::Finding f = MakeFinding("rr-interrupt-coalescing", Severity::kWarning,
                                  "Each transaction waits on interrupt coalescing");
  f.evidence = std::move(evidence);
  f.evidence.push_back(
      fmt::format("median transaction {:.1f} us; up to {:.0f} us of it is the "
                  "NICs holding the interrupt (request and response each "
                  "wait once)",
                  p50, wait_us));
  f.meaning =
      "A request/response exchange has one packet in flight: the NIC waits rx-usecs "
      "for more packets that never come before it interrupts, on every transaction.";
  f.next_step =
      "For latency, set ethtool -C IFACE rx-usecs 0 (or adaptive-rx on) on both ends "
      "and run again; bulk throughput may then cost more interrupts.";
  out.push_back(std::move(f));
  return out;
}

Findings RrLossAndCounts(const RunView& view, const Thresholds&) {
  Findings out;
  if (!view.run().rr) return out;
  const record::RrSummary& s = *view.run().rr;
  if (s.local.transactions == 0 && s.local.lost == 0) {
    // Nothing else flags it: both ends agree on zero, and there is no rate to be low against.
    record::Finding f =
        MakeFinding("rr-no-transactions", Severity::kWarning, "Not one transaction completed");
    f.evidence.push_back(fmt::format(
        "client 0, server {}",
        s.peer_transactions ? std::to_string(*s.peer_transactions) : std::string("not reported")));
    f.meaning =
        "The test ran but no request was answered: the server's end was held (for --crr, "
        "connections to its listener that never send a request), or the path drops everything.";
    f.next_step =
        "Look at the server's log for refused connections to its CRR listener; run again.";
    out.push_back(std::move(f));
  }
  if (s.local.lost > 0) {
    const uint64_t sent = s.local.lost + s.local.transactions;
    record::Finding f =
        MakeFinding("rr-loss", Severity::kWarning,
                    fmt::format("{} of {} UDP transactions were lost", s.local.lost, sent));
    f.evidence.push_back(
        fmt::format("no response within --rr-timeout {} ms for {} requests; "
                    "{} responses came later",
                    view.run().spec.rr.timeout_ms, s.local.lost, s.local.late));
    f.meaning =
        "A request or its response was dropped on the path or at a socket; UDP "
        "request/response does not retransmit, so each loss costs a timeout.";
    f.next_step = "Look at the drop counters of both ends (softnet, NIC, UDP receive errors).";
    out.push_back(std::move(f));
  }
  // Requests in flight at the end may be answered but not read; a timed test's two ends also
  // close their counted windows on their own clocks and timers, which on a busy host wake
  // milliseconds late (5% allowed).
  uint64_t slack = uint64_t{view.run().spec.rr.burst} * view.run().spec.parallel;
  if (view.run().spec.blocks == 0) slack += s.local.transactions / 20;
  const bool fewer =
      s.peer_transactions && *s.peer_transactions + s.local.lost + slack < s.local.transactions;
  const bool more =
      s.peer_transactions &&
      *s.peer_transactions > s.local.transactions + s.local.lost + s.local.late + slack;
  if (fewer || more) {
    record::Finding f = MakeFinding("rr-counts-disagree", Severity::kWarning,
                                    "The two ends counted different transactions");
    f.evidence.push_back(
        fmt::format("client {}, server {}", s.local.transactions, *s.peer_transactions));
    f.meaning =
        "The ends' counts differ by more than the requests in flight and the clock "
        "difference of their windows explain: the counts are not to be trusted.";
    f.next_step = "Run again; report it with both ends' JSON if it repeats.";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace nicbench::diagnosis
