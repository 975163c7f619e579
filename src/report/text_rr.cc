// The text lines of a request/response test (docs/rr.md): per interval the transactions of
// every flow together with their latency percentiles, and a summary with both ends' counts,
// connect times (CRR), loss (UDP) and the CPU time per transaction of each end.
#include <fmt/format.h>

#include "analysis/figures.h"
#include "report/text_lines.h"

namespace nicbench::report::text {
namespace {

std::string Us(double us) {
  if (us >= 10000) return fmt::format("{:.1f} ms", us / 1000);
  if (us >= 1000) return fmt::format("{:.2f} ms", us / 1000);
  return fmt::format("{:.1f} us", us);
}

std::string Percentiles(const record::LatencySummary& l) {
  return fmt::format("{:>9} {:>9} {:>9} {:>9} {:>9}", Us(l.p50_us), Us(l.p90_us), Us(l.p99_us),
                     Us(l.p999_us), Us(l.max_us));
}

std::string LossColumns(const record::RunRecord& run, const record::RrStats& rr) {
  if (run.spec.transport != record::Transport::kUdp) return "";
  return fmt::format("  lost {}", rr.lost) + (rr.late ? fmt::format(" late {}", rr.late) : "");
}

std::string PerTransaction(const std::optional<double>& process,
                           const std::optional<double>& host) {
  auto one = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.2f}", *v) : std::string("unknown");
  };
  return fmt::format("{} us (nicbench process), {} us (whole host)", one(process), one(host));
}

}  // namespace

std::string RrIntervalHeader(const record::RunRecord& run) {
  (void)run;
  return "[ ID] Interval           Transactions      Trans/s       p50       p90       p99"
         "     p99.9       max\n";
}

std::string RrIntervalLine(const record::RunRecord& run, const record::IntervalRecord& interval) {
  if (!interval.rr) return "";
  const record::RrStats& rr = *interval.rr;
  std::string line = fmt::format("[ RR] {:6.2f}-{:<6.2f} sec {:>12} {:>12.1f}", interval.start,
                                 interval.end, rr.transactions, record::TransactionsPerSecond(rr));
  if (rr.latency && rr.latency->count > 0) line += " " + Percentiles(*rr.latency);
  line += LossColumns(run, rr);
  if (interval.omitted) line += "  (omitted)";
  return line + "\n";
}

std::string RrSummary(const record::RunRecord& run) {
  if (!run.rr) return "";
  const record::RrSummary& s = *run.rr;
  const record::RrStats& rr = s.local;
  std::string out = kSeparator;
  out += RrIntervalHeader(run);
  record::IntervalRecord whole;
  whole.end = run.test_seconds;
  whole.rr = rr;
  out += RrIntervalLine(run, whole);
  const bool client = run.local.role != record::Role::kServer;
  out += fmt::format("      {} {} transactions", client ? "client completed" : "server answered",
                     rr.transactions);
  if (s.peer_transactions) {
    out += fmt::format(", {} {}", client ? "server answered" : "client completed",
                       *s.peer_transactions);
  }
  out += "\n";
  if (rr.latency && rr.latency->count > 0) {
    out += fmt::format(
        "      latency mean {}, min {} ({} {}-byte requests, {}-byte responses, "
        "{} in flight per flow, {} flows{})\n",
        Us(rr.latency->mean_us), Us(rr.latency->min_us), record::RrModeName(run.spec.rr.mode),
        run.spec.rr.request_bytes, run.spec.rr.response_bytes, run.spec.rr.burst, run.spec.parallel,
        record::RrSpinNote(run.spec.rr));
  }
  if (rr.connect && rr.connect->count > 0) {
    out += fmt::format("      connect   p50 {} p90 {} p99 {} p99.9 {} max {} mean {}\n",
                       Us(rr.connect->p50_us), Us(rr.connect->p90_us), Us(rr.connect->p99_us),
                       Us(rr.connect->p999_us), Us(rr.connect->max_us), Us(rr.connect->mean_us));
  }
  const analysis::RrServiceDemand demand = analysis::ComputeRrServiceDemand(run);
  out += "      CPU per transaction, local:  " +
         PerTransaction(demand.local_process_us, demand.local_host_us) + "\n";
  out += "      CPU per transaction, remote: " +
         PerTransaction(demand.remote_process_us, demand.remote_host_us) + "\n";
  return out;
}

}  // namespace nicbench::report::text
