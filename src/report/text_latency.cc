// run --under-load: the latency section of the summary (docs/latency.md), from
// analysis/under_load.h. Each unknown figure says why.
#include <string>

#include <fmt/format.h>

#include "analysis/under_load.h"
#include "base/units.h"
#include "report/text_lines.h"

namespace nicbench::report::text {
namespace {

using record::Measured;

std::string Ms(const Measured<double>& ms) {
  if (!ms.known()) return "unknown";
  return ms.value() < 10 ? fmt::format("{:.2f} ms", ms.value())
                         : fmt::format("{:.1f} ms", ms.value());
}

std::string Rpm(const Measured<double>& rpm) {
  return rpm.known() ? fmt::format("{:.0f} RPM", rpm.value()) : "unknown";
}

std::string ProbeRow(const char* name, const analysis::ProbeLatency& idle,
                     const analysis::ProbeLatency& loaded) {
  return fmt::format("  {:<22} {:>10} {:>10}   p90 {} p99 {} max {} ({} probes)\n", name,
                     Ms(idle.p50_ms), Ms(loaded.p50_ms), Ms(loaded.p90_ms), Ms(loaded.p99_ms),
                     Ms(loaded.max_ms), loaded.count);
}

std::string ClockText(const Measured<record::ClockOffset>& offset) {
  if (!offset.known()) return "unknown (" + offset.detail() + ")";
  const record::ClockOffset& c = offset.value();
  return fmt::format("{:+.3f} ms +- {:.3f} ms ({} of {} exchanges{})", c.offset_us / 1000,
                     c.bound_us / 1000, c.kept, c.exchanges,
                     c.carried ? ", the idle phase's estimate" : "");
}

// Up and down separately (docs/latency.md, "One-way delay"), or why they are unknown.
std::string OneWayLines(const analysis::OneWayFigures& w) {
  std::string out = "One-way delay of the kept connection's probes (up = client to server):\n";
  out += fmt::format("  server clock - client clock: idle {}, loaded {}\n", ClockText(w.idle_clock),
                     ClockText(w.loaded_clock));
  if (!w.idle_clock.known() && !w.loaded_clock.known()) return out;
  out += ProbeRow("up", w.idle_up, w.loaded_up);
  out += ProbeRow("down", w.idle_down, w.loaded_down);
  const std::string bound =
      w.added_bound_ms.known() ? "+- " + Ms(w.added_bound_ms) : "bound unknown";
  out += fmt::format("  added by the load: up {}, down {} ({} from the clocks)\n",
                     Ms(w.added_up_ms), Ms(w.added_down_ms), bound);
  return out;
}

std::string QueueLines(const analysis::UnderLoadFigures& f) {
  std::string out = "Where the added delay sits (mean backlog over the test):\n";
  for (const analysis::QueueDelay& q : f.queues) {
    out += fmt::format("  {:<8} {:<26} {:>12}  {}\n", q.end, q.layer,
                       q.bytes.known() ? FormatBytes(q.bytes.value()) : "unknown",
                       q.ms.known() ? "= " + Ms(q.ms) : "(" + q.ms.detail() + ")");
  }
  if (f.queues.empty()) out += "  no queue of either host was sampled\n";
  out += fmt::format("  beyond these hosts: {}\n", Ms(f.beyond_ms));
  return out;
}

}  // namespace

std::string LatencyUnderLoad(const record::RunRecord& run) {
  if (!run.under_load) return "";
  const analysis::UnderLoadFigures f = analysis::ComputeUnderLoad(run);
  std::string out = fmt::format(
      "Latency under load ({} probes/s; responsiveness as the IETF draft computes it, adapted "
      "to TCP):\n",
      run.under_load->probe_rate_per_second);
  if (!f.unknown_why.empty()) out += "  foreign probes: " + f.unknown_why + "\n";
  out += fmt::format("  {:<22} {:>10} {:>10}\n", "p50", "idle", "loaded");
  out += ProbeRow("request on a kept conn", f.idle_kept, f.loaded_kept);
  out += ProbeRow("new connection (SYN)", f.idle_connect, f.loaded_connect);
  out += fmt::format("  {:<22} {:>10} {:>10}\n", "TCP_INFO RTT (mean)", Ms(f.idle_rtt_ms),
                     Ms(f.loaded_rtt_ms));
  out += fmt::format("  added by the load: {} (trimmed means of the kept connection's probes)\n",
                     Ms(f.added_ms));
  out += fmt::format("  responsiveness: {} idle, {} loaded ({} confidence)\n", Rpm(f.idle.rpm),
                     Rpm(f.loaded.rpm), analysis::ConfidenceName(f.confidence));
  if (f.probe_share.known()) {
    out += fmt::format("  the probes' share of the bytes: {:.3f}%\n", f.probe_share.value() * 100);
  }
  return out + OneWayLines(f.one_way) + QueueLines(f);
}

}  // namespace nicbench::report::text
