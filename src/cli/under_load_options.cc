#include "cli/under_load_options.h"

#include <fmt/format.h>

#include "base/units.h"
#include "cli/option_tables.h"

namespace nicbench::cli {

void AddUnderLoadOptions(CLI::App& app, UnderLoadArgs& a) { AddRows(app, a, UnderLoadRows()); }

Result<std::optional<job::ProbeOptions>> ApplyUnderLoadArgs(const UnderLoadArgs& a,
                                                            const record::TestSpec& spec) {
  if (!a.on) {
    if (!a.rate.empty() || !a.idle.empty())
      return Fail("--probe-rate and --idle-time need --under-load");
    return std::nullopt;
  }
  if (spec.rr.enabled()) return Fail("--under-load runs probes beside a bulk test, not --rr/--crr");
  if (spec.bytes != 0 || spec.blocks != 0) {
    return Fail("--under-load needs a timed test (-t): the probes run for the test's time");
  }
  job::ProbeOptions probes;
  if (!a.rate.empty()) {
    auto r = ParseUnsigned(a.rate);
    if (!r || *r < 2 || *r > job::kMaxProbeRate) {
      return Fail(fmt::format("--probe-rate {}: expected 2..{} probes a second", a.rate,
                              job::kMaxProbeRate));
    }
    probes.rate_per_second = static_cast<uint32_t>(*r);
  }
  if (!a.idle.empty()) {
    auto s = ParseSeconds(a.idle);
    if (!s || !(*s >= 1 && *s <= 60)) {
      return Fail(fmt::format("--idle-time {}: expected 1..60 seconds", a.idle));
    }
    probes.idle = std::chrono::milliseconds(static_cast<int64_t>(*s * 1000));
  }
  if (probes.idle > spec.duration) {
    return Fail(
        fmt::format("--idle-time {} s is longer than the test ({} s): the idle phase is a "
                    "baseline for the test, not the test",
                    probes.idle.count() / 1000.0, spec.duration.count() / 1000.0));
  }
  return probes;
}

}  // namespace nicbench::cli
