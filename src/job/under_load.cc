#include "job/under_load.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <future>
#include <optional>
#include <string>
#include <utility>

#include "job/stop_event.h"
#include "protocol/clock_exchange.h"

namespace nicbench::job {
namespace {

using record::Measured;
using record::Missing;
using record::ProbePhase;
using record::RrStats;

// What the probe test says about its kind of probe: its totals, or why there are none.
Measured<RrStats> ProbeStats(const engine::ClientOutcome& probe) {
  if (probe.record.rr && probe.record.rr->local.transactions > 0) return probe.record.rr->local;
  if (!probe.ok()) {
    return Measured<RrStats>::Unknown(Missing::kError,
                                      "the probe test failed: " + probe.status.error().message);
  }
  return Measured<RrStats>::Unknown(Missing::kError, "no probe was answered");
}

// The kept probe's TCP_INFO RTT at each of its intervals (the request's sender is this end).
std::vector<uint32_t> KeptRtts(const record::RunRecord& probe) {
  std::vector<uint32_t> rtts;
  for (const record::IntervalRecord& i : probe.intervals) {
    for (const record::StreamInterval& s : i.streams) {
      if (const record::TcpInfoSample* t = s.tcp_info.get(); t && t->rtt_us > 0) {
        rtts.push_back(t->rtt_us);
      }
    }
  }
  return rtts;
}

uint64_t ProbeBytes(const Measured<RrStats>& stats, const record::TestSpec& spec) {
  const RrStats* s = stats.get();
  if (s == nullptr) return 0;
  return s->transactions * (uint64_t{spec.rr.request_bytes} + spec.rr.response_bytes);
}

// The offset the kept probe's one-way delays were corrected with, or why it has none.
Measured<record::ClockOffset> ClockOf(const engine::ClientOutcome& kept) {
  if (kept.record.rr && kept.record.rr->clock) return *kept.record.rr->clock;
  if (!kept.clock_unknown.empty()) {
    return Measured<record::ClockOffset>::Unknown(Missing::kNotReported, kept.clock_unknown);
  }
  const Measured<RrStats> stats = ProbeStats(kept);
  return Measured<record::ClockOffset>::Unknown(
      stats.known() ? Missing::kNotReported : stats.why(),
      stats.known() ? "the clocks' offset was not estimated" : stats.detail());
}

ProbePhase PhaseOf(const engine::ClientOutcome& kept, const engine::ClientOutcome& fresh,
                   std::chrono::milliseconds length) {
  ProbePhase phase;
  phase.seconds = static_cast<double>(length.count()) / 1000.0;
  phase.kept = ProbeStats(kept);
  phase.fresh = ProbeStats(fresh);
  phase.probe_bytes =
      ProbeBytes(phase.kept, kept.record.spec) + ProbeBytes(phase.fresh, fresh.record.spec);
  phase.kept_rtt_us = KeptRtts(kept.record);
  phase.clock = ClockOf(kept);
  return phase;
}

ProbePhase Unanswered(const std::string& why) {
  ProbePhase phase;
  phase.kept = Measured<RrStats>::Unknown(Missing::kNotReported, why);
  phase.fresh = Measured<RrStats>::Unknown(Missing::kNotReported, why);
  phase.clock = Measured<record::ClockOffset>::Unknown(Missing::kNotReported, why);
  return phase;
}

ErrorKind Kind(const engine::ClientOutcome& o) {
  return o.ok() ? ErrorKind::kOther : o.status.error().kind;
}

// False when `stop_fd` became readable within `wait` (the load ended, the user stopped it).
bool Waited(int stop_fd, std::chrono::milliseconds wait) {
  pollfd p{stop_fd, POLLIN, 0};
  return ::poll(&p, stop_fd >= 0 ? 1 : 0, static_cast<int>(wait.count())) <= 0;
}

// Whether a failed test may go again: the server still busy with this job's tests of the phase
// before (it frees their places a moment after they end); after a stock iperf3 refused a probe,
// any failure before data moved (it closes and reopens its listening socket, and closes a
// connection that comes while it resets).
bool Settling(const engine::ClientOutcome& o, bool after_stock) {
  if (Kind(o) == ErrorKind::kBusy) return true;
  return after_stock && !o.ok() && Kind(o) != ErrorKind::kInterrupted &&
         o.record.intervals.empty() && !o.record.incomplete;
}

}  // namespace

engine::ClientOutcome RunSettled(const engine::ClientConfig& config, int stop_fd, bool after_stock,
                                 engine::ClientEvents& events) {
  constexpr int kTries = 20;
  constexpr std::chrono::milliseconds kPause{100};
  engine::ClientOutcome outcome = engine::RunClient(config, events);
  for (int i = 1; i < kTries && Settling(outcome, after_stock) && Waited(stop_fd, kPause); ++i) {
    outcome = engine::RunClient(config, events);
  }
  return outcome;
}

engine::ClientOutcome RunSettled(const engine::ClientConfig& config, int stop_fd,
                                 bool after_stock) {
  engine::ClientEvents none;
  return RunSettled(config, stop_fd, after_stock, none);
}

namespace {

// The probe test of `config` once `delay` has passed, unless `stop_fd` became readable first.
engine::ClientOutcome ProbeAfter(const engine::ClientConfig& config,
                                 std::chrono::milliseconds delay, int stop_fd) {
  if (delay.count() > 0 && !Waited(stop_fd, delay)) {
    engine::ClientOutcome stopped;
    stopped.status = Fail(ErrorKind::kInterrupted, "the test ended before its warm-up did");
    return stopped;
  }
  return RunSettled(config, stop_fd);
}

// Both probes for `length` after `delay`, on threads of their own, while `beside` runs on this
// thread. `clock_hint`: the idle phase's clock offset, for the loaded phase's kept probe, whose
// own exchanges cross the loaded path.
template <typename Beside>
std::pair<engine::ClientOutcome, engine::ClientOutcome> WithProbes(
    const engine::ClientConfig& load, const ProbeOptions& probes, std::chrono::milliseconds delay,
    std::chrono::milliseconds length, int stop_fd,
    const std::optional<record::ClockOffset>& clock_hint, Beside&& beside) {
  const uint32_t each = std::max<uint32_t>(probes.rate_per_second / 2, 1);
  engine::ClientConfig kept = ProbeConfig(load, record::RrMode::kRr, each, length);
  engine::ClientConfig fresh = ProbeConfig(load, record::RrMode::kCrr, each, length);
  kept.stop_fd = fresh.stop_fd = stop_fd;
  // One-way delays: the server's receive and send times ride in each response's 16 bytes, and
  // the clocks' offset comes from exchanges over the control connection. Under load each
  // exchange waits in the queue: a few then, in case the idle estimate is the wider.
  kept.spec.rr.response_bytes = protocol::kStampBytes;
  kept.clock_hint = clock_hint;
  kept.clock_exchanges =
      clock_hint ? static_cast<uint32_t>(protocol::kClockExchangesKept) : protocol::kClockExchanges;
  auto kept_run = std::async(std::launch::async, [&] { return ProbeAfter(kept, delay, stop_fd); });
  auto fresh_run =
      std::async(std::launch::async, [&] { return ProbeAfter(fresh, delay, stop_fd); });
  beside();
  return {kept_run.get(), fresh_run.get()};
}

}  // namespace

engine::ClientConfig ProbeConfig(const engine::ClientConfig& load, record::RrMode mode,
                                 uint32_t rate, std::chrono::milliseconds duration) {
  engine::ClientConfig probe;
  probe.host = load.host;
  probe.port = load.port;
  probe.connect_timeout = load.connect_timeout;
  probe.control_timeout = load.control_timeout;
  probe.auth = load.auth;
  probe.server_key = load.server_key;
  probe.server_key_path = load.server_key_path;
  probe.sample_host = false;  // the load's ends sample the hosts; the probes only time
  probe.threads = 1;
  record::TestSpec& spec = probe.spec;
  spec.family = load.spec.family;
  spec.bind_address = load.spec.bind_address;
  spec.bind_device = load.spec.bind_device;
  spec.tos = load.spec.tos;
  spec.interval = load.spec.interval;
  spec.duration = duration;
  spec.rr.mode = mode;
  spec.rr.rate_per_second = rate;
  // Probes go on schedule while earlier ones wait in a queue: up to a second's worth in flight.
  spec.rr.burst = std::clamp<uint32_t>(rate, 1, record::kMaxRrBurst);
  return probe;
}

engine::ClientOutcome RunUnderLoad(const engine::ClientConfig& load, const ProbeOptions& probes,
                                   engine::ClientEvents& events) {
  record::UnderLoad under;
  under.probe_rate_per_second = probes.rate_per_second;
  auto [idle_kept, idle_fresh] = WithProbes(load, probes, std::chrono::milliseconds(0), probes.idle,
                                            load.stop_fd, std::nullopt, [] {});
  under.idle = PhaseOf(idle_kept, idle_fresh, probes.idle);
  engine::ClientOutcome outcome;
  if (Kind(idle_kept) == ErrorKind::kInterrupted || Kind(idle_fresh) == ErrorKind::kInterrupted) {
    outcome.status = idle_kept.ok() ? idle_fresh.status : idle_kept.status;  // before the test
    outcome.record.spec = load.spec;
    outcome.record.error = outcome.status.error().message;
    return outcome;
  }
  if (!idle_kept.ok() || !idle_fresh.ok()) {
    // A stock iperf3 asks the first probe for a bulk test's streams and refuses the second as
    // busy, in either order; any other failure leaves the test to run (and say) alone as well.
    const bool stock =
        Kind(idle_kept) == ErrorKind::kPeerCannot || Kind(idle_fresh) == ErrorKind::kPeerCannot;
    const engine::ClientOutcome& failed = idle_kept.ok() ? idle_fresh : idle_kept;
    const std::string why =
        stock ? "the server answers no probes (a stock iperf3: run `nicbench serve` on " +
                    load.host + "); only this end's view is measured"
              : "the probes failed: " + failed.status.error().message;
    under.idle = Unanswered(why);
    under.loaded = Unanswered(why);
    outcome = RunSettled(load, load.stop_fd, stock, events);
  } else {
    StopEvent stop;  // ends the probes when the load ends before them (or is interrupted)
    // The load's warm-up (-O) is not its working condition: the probes start after it.
    const auto length = load.spec.duration;
    const std::optional<record::ClockOffset> hint =
        under.idle.clock.known() ? std::optional(under.idle.clock.value()) : std::nullopt;
    auto [kept, fresh] = WithProbes(load, probes, load.spec.omit, length, stop.fd, hint, [&] {
      outcome = RunSettled(load, load.stop_fd, false, events);
      stop.Now();
    });
    under.loaded = PhaseOf(kept, fresh, length);
  }
  outcome.record.under_load = std::move(under);
  return outcome;
}

}  // namespace nicbench::job
