// Is the measurement itself to be trusted: long enough, steady enough, both ends reported.
// (nicbench's own CPU use is in rules_cpu.cc.)
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "base/units.h"
#include "diagnosis/rules.h"

namespace nicbench::diagnosis {

using record::Severity;

Findings TestTooShort(const RunView& view, const Thresholds& t) {
  double seconds = view.run().test_seconds;
  double rtt_us = 0;
  for (const Flow& flow : view.flows()) {
    seconds = std::max(seconds, flow.seconds);
    if (flow.tcp) rtt_us = std::max(rtt_us, flow.tcp->mean_rtt_us);
  }
  if (seconds <= 0) {
    // A byte- or block-limited test that ended within the omitted warm-up counted nothing.
    const auto omit = view.run().spec.omit;
    if (omit.count() <= 0) return {};
    record::Finding f = MakeFinding(
        "measurement-empty", Severity::kWarning,
        "Measurement empty: the test ended during the omitted warm-up, nothing was counted");
    f.evidence.push_back(fmt::format("omit {:.1f} s (-O); measured duration 0 s after it",
                                     std::chrono::duration<double>(omit).count()));
    f.meaning =
        "Bytes sent or received during the warm-up are excluded from every total, and "
        "the test met its end condition (-n or -k) before the warm-up was over.";
    f.next_step = "Ask for more data (-n, -k), use a shorter -O, or end the test by time (-t).";
    return {f};
  }
  double rtt_bound = t.min_test_rtts * rtt_us / 1e6;
  if (seconds >= t.min_test_seconds && seconds >= rtt_bound) return {};
  record::Finding f =
      MakeFinding("measurement-too-short", Severity::kWarning,
                  fmt::format("Measurement suspect: the test lasted only {:.2f} s", seconds));
  f.evidence.push_back(
      fmt::format("measured duration {:.2f} s (after any omitted warm-up)", seconds));
  if (rtt_us > 0) {
    f.evidence.push_back(fmt::format("mean RTT {:.2f} ms: {} RTTs take {:.2f} s", rtt_us / 1000,
                                     t.min_test_rtts, rtt_bound));
  }
  f.meaning = fmt::format(
      "TCP's slow start and the first interval's ramp weigh heavily in a "
      "test shorter than {:.0f} s or {:.0f} round trips; the figure "
      "understates the path.",
      t.min_test_seconds, t.min_test_rtts);
  f.next_step = "Run for 10 s or more (-t 10), and exclude the warm-up with -O 1 or 2.";
  return {f};
}

Findings IntervalsVary(const RunView& view, const Thresholds& t) {
  Findings out;
  for (const Flow& flow : view.flows()) {
    const auto& rates = flow.interval_bits_per_second;
    if (rates.size() < 3) continue;
    double cv = CoefficientOfVariation(rates);
    if (cv <= t.max_interval_cv) continue;
    auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
    record::Finding f = MakeFinding(
        "measurement-unsteady", Severity::kWarning,
        fmt::format("Measurement suspect: interval rates vary wildly (coefficient of variation "
                    "{:.2f})",
                    cv));
    f.evidence.push_back(
        fmt::format("{}, {} full intervals (omitted excluded): min {}, mean {}, "
                    "max {}",
                    FlowName(flow), rates.size(), FormatBitRate(*lo), FormatBitRate(Mean(rates)),
                    FormatBitRate(*hi)));
    f.meaning =
        "The path changed during the test (other traffic, a stall, power management, "
        "an interrupt storm), so the average describes no moment of it.";
    f.next_step =
        "Look at the per-interval lines for stalls, repeat the test, and run longer "
        "to see whether it settles.";
    out.push_back(std::move(f));
  }
  return out;
}

Findings RemoteNotReported(const RunView& view, const Thresholds&) {
  const auto& remote = view.run().remote;
  if (remote.known()) return {};
  record::Finding f = MakeFinding("remote-not-reported", Severity::kInfo,
                                  "The peer's side is not measured: its rules stayed silent");
  f.evidence.push_back(fmt::format("remote end: {}{}", record::MissingName(remote.why()),
                                   remote.detail().empty() ? "" : " (" + remote.detail() + ")"));
  f.meaning =
      "A stock iperf3 peer reports byte counts only: its CPU, interrupts and NIC facts "
      "are unknown, so a limit on that side cannot be seen.";
  f.next_step = "Run nicbench serve on the peer to measure both ends.";
  return {f};
}

}  // namespace nicbench::diagnosis
