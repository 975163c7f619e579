// `nicbench monitor PEER` (docs/monitor.md): argv -> job::MonitorSpec, then the job runs until
// SIGTERM or SIGINT; `--replay DIR` judges a recorded series instead. This file only parses,
// checks and wires: the sampling, tests, probes and judgement are the job layer's
// (job/monitor.h), the renderings the report layer's.
#include <sys/signalfd.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "base/log.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/metrics_listener.h"
#include "cli/monitor_outputs.h"
#include "cli/parse_args.h"
#include "cli/run_arguments.h"
#include "cli/selector.h"
#include "cli/store_options.h"
#include "job/monitor.h"
#include "job/under_load.h"
#include "net/socket_address.h"
#include "probes/collect_facts.h"

namespace nicbench::cli {
namespace {

struct MonitorArgs {
  std::string peer, port = "5201", every = "10m", test = "-t 5 --both-directions",
                    sample_interval = "1s", probe_window = "10s", probe_rate = "10", baseline,
                    baseline_tests = "3", saturated_for = "10s", saturated_percent = "90",
                    degraded_percent = "10", events, metrics_listen, record, replay, iface, id,
                    lock_dir;
  bool json = false;
  StoreArgs store;
};

void AddMonitorOptions(CLI::App& app, MonitorArgs& a) {
  app.add_option("peer", a.peer, "the peer to watch: `nicbench serve` or a stock iperf3 -s");
  app.add_option("-p,--port", a.port, "the peer's port (default 5201)");
  app.add_option("--every", a.every, "time between periodic tests: 30s, 10m, 1h (default 10m)");
  app.add_option("--test", a.test,
                 "the periodic test, as run's options in one word list (default\n"
                 "'-t 5 --both-directions': five seconds each way)");
  app.add_option("--sample-interval", a.sample_interval,
                 "time between samples of this host, 0.1s..60s (default 1s)");
  app.add_option("--probe-window", a.probe_window,
                 "latency probes between tests: one figure per window, 1s..10m (default 10s)");
  app.add_option("--probe-rate", a.probe_rate,
                 "request/response probes a second against a nicbench peer, 1..100 (default 10)");
  app.add_option("--baseline", a.baseline,
                 "stored runs to judge the tests against (a selector as compare takes);\n"
                 "default: the session's first --baseline-tests tests each direction");
  app.add_option("--baseline-tests", a.baseline_tests,
                 "tests that make the baseline, 1..100 (default 3)");
  app.add_option("--saturated-for", a.saturated_for,
                 "a core busy in irq/softirq this long is an event (default 10s)");
  app.add_option("--saturated-percent", a.saturated_percent,
                 "irq+softirq share of a core that counts as saturated, 50..100 (default 90)");
  app.add_option("--degraded-percent", a.degraded_percent,
                 "goodput this far below the baseline (and significant) is an event, 1..99\n"
                 "(default 10)");
  app.add_option("--events", a.events, "append the events as NDJSON to FILE (SIGHUP reopens it)");
  app.add_flag("--json", a.json, "NDJSON events on stdout even on a terminal");
  app.add_option("--metrics-listen", a.metrics_listen,
                 "serve Prometheus metrics at http://ADDR:PORT/metrics (ADDR defaults to\n"
                 "127.0.0.1)");
  app.add_option("--record", a.record, "write every sample's /proc and /sys files under DIR");
  app.add_option("--replay", a.replay, "judge a recorded series (--record DIR) instead of a peer");
  app.add_option("--interface", a.iface, "the interface to watch (default: the route to PEER)");
  app.add_option("--id", a.id, "the monitor's id (default: PEER:PORT and the start time)");
  app.add_option("--lock-dir", a.lock_dir,
                 "where the one-monitor-per-peer lock lives (default $XDG_RUNTIME_DIR/nicbench)");
  AddStoreWriteOptions(app, a.store);
}

Result<std::chrono::milliseconds> DurationOption(const std::string& text, const char* name,
                                                 std::chrono::milliseconds low,
                                                 std::chrono::milliseconds high) {
  auto d = ParseDuration(text);
  if (!d) return Fail(fmt::format("{} {}", name, d.error().message));
  if (*d < low || *d > high) {
    return Fail(fmt::format("{} {}: expected {} s .. {} s", name, text, low.count() / 1000.0,
                            high.count() / 1000.0));
  }
  return *d;
}

Result<double> NumberOption(const std::string& text, const char* name, double low, double high) {
  auto v = ParseSeconds(text);  // a non-negative decimal number
  if (!v || *v < low || *v > high) {
    return Fail(fmt::format("{} {}: expected a number {}..{}", name, text, low, high));
  }
  return *v;
}

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

using std::chrono::milliseconds;

Result<job::Thresholds> MakeThresholds(const MonitorArgs& a) {
  job::Thresholds t;
  auto sat_for =
      DurationOption(a.saturated_for, "--saturated-for", milliseconds(100), milliseconds(3600000));
  if (!sat_for) return tl::unexpected(sat_for.error());
  t.saturated_for = *sat_for;
  auto sat = NumberOption(a.saturated_percent, "--saturated-percent", 50, 100);
  if (!sat) return tl::unexpected(sat.error());
  t.saturated_percent = *sat;
  auto degraded = NumberOption(a.degraded_percent, "--degraded-percent", 1, 99);
  if (!degraded) return tl::unexpected(degraded.error());
  t.degraded_percent = *degraded;
  auto tests = ParseUnsigned(a.baseline_tests);
  if (!tests || *tests < 1 || *tests > 100) {
    return Fail(fmt::format("--baseline-tests {}: expected 1..100", a.baseline_tests));
  }
  t.baseline_tests = static_cast<int>(*tests);
  return t;
}

// The periodic tests from --test, checked by run's own parser; --every must leave them room.
Status FillTests(const MonitorArgs& a, job::MonitorSpec& spec) {
  std::vector<std::string> args = {a.peer, "-p", a.port};
  for (std::string& w : Words(a.test)) args.push_back(std::move(w));
  auto tests = RunArgumentsToTests(args);
  if (!tests) return Fail("--test '" + a.test + "': " + tests.error().message);
  milliseconds total{0};
  for (const engine::ClientConfig& t : *tests) {
    if (t.spec.bytes != 0 || t.spec.blocks != 0 || t.spec.duration.count() == 0) {
      return Fail("--test '" + a.test + "': the monitor's tests are timed (-t SECONDS, not 0)");
    }
    total += t.spec.duration + t.spec.omit;
  }
  if (spec.every <= total) {
    return Fail(
        fmt::format("--every {}: shorter than its tests ({} s)", a.every, total.count() / 1000.0));
  }
  spec.tests = std::move(*tests);
  return Ok();
}

Result<job::MonitorSpec> MakeSpec(const MonitorArgs& a) {
  job::MonitorSpec spec;
  spec.peer = a.peer;
  auto every = DurationOption(a.every, "--every", milliseconds(1000), milliseconds(86400000));
  if (!every) return tl::unexpected(every.error());
  spec.every = *every;
  auto sample = DurationOption(a.sample_interval, "--sample-interval", milliseconds(100),
                               milliseconds(60000));
  if (!sample) return tl::unexpected(sample.error());
  spec.sample_interval = *sample;
  auto window =
      DurationOption(a.probe_window, "--probe-window", milliseconds(1000), milliseconds(600000));
  if (!window) return tl::unexpected(window.error());
  spec.probe_window = *window;
  auto rate = ParseUnsigned(a.probe_rate);
  if (!rate || *rate < 1 || *rate > 100) {
    return Fail(fmt::format("--probe-rate {}: expected 1..100 probes a second", a.probe_rate));
  }
  spec.probe_rate = static_cast<uint32_t>(*rate);
  auto thresholds = MakeThresholds(a);
  if (!thresholds) return tl::unexpected(thresholds.error());
  spec.thresholds = *thresholds;
  if (auto s = FillTests(a, spec); !s) return tl::unexpected(s.error());
  if (!a.metrics_listen.empty()) {
    if (auto where = ParseListenAddress(a.metrics_listen); !where) {
      return tl::unexpected(where.error());
    }
  }
  spec.record_dir = a.record;
  return spec;
}

// --baseline SELECTOR: the stored runs, read whole (their intervals are the samples).
Status LoadBaseline(const MonitorArgs& a, job::MonitorSpec& spec) {
  if (a.baseline.empty()) return Ok();
  auto selector = ParseSelector(a.baseline);
  if (!selector) return Fail("--baseline " + selector.error().message);
  auto store = OpenForReading(a.store);
  if (!store) return Fail("--baseline: " + store.error().ToString());
  auto runs = Resolve(**store, *selector);
  if (!runs) return Fail("--baseline: " + runs.error().ToString());
  if (runs->runs.empty()) return Fail("--baseline: " + NoRunsMessage(**store, *selector));
  auto stored = (*store)->GetMany(IdsOf(runs->runs));
  if (!stored) return Fail("--baseline: " + stored.error().ToString());
  for (store::StoredRun& r : *stored) spec.baseline.push_back(std::move(r.record));
  return Ok();
}

// SIGINT, SIGTERM and SIGHUP through a signalfd, so the monitor's loop sees them as an fd; SIGPIPE
// blocked so a reader of stdout that went away is an EPIPE, not a death.
int SignalFd() {
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&mask, sig);
  if (pthread_sigmask(SIG_BLOCK, &mask, nullptr) != 0) return -1;
  sigdelset(&mask, SIGPIPE);
  return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

// Reads the pending signals: SIGHUP reopens the events file; the others stop (`stopped_by`).
bool Woken(int fd, EventWriter& events, int& stopped_by) {
  signalfd_siginfo info{};
  while (::read(fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    if (info.ssi_signo == SIGHUP) {
      events.Reopen();
    } else {
      stopped_by = static_cast<int>(info.ssi_signo);
    }
  }
  return stopped_by != 0;
}

// The outputs a monitor opens before it starts, in the order a user fixes them.
struct Outputs {
  StorePlan store;
  std::unique_ptr<EventWriter> events;
  std::unique_ptr<MetricsListener> metrics;
};

// Usage was checked before (MakeSpec, MakeStorePlan): every error here is the machine's.
Result<Outputs> OpenOutputs(const MonitorArgs& a, StorePlan store) {
  Outputs out;
  out.store = std::move(store);
  out.events = std::make_unique<EventWriter>(a.json, a.events);
  if (auto s = out.events->Open(); !s) return Fail(s.error().ToString());
  if (auto s = CheckStoreBeforeTheRun(out.store); !s) {
    return Fail("the result store cannot take runs: " + s.error().ToString());
  }
  if (!a.metrics_listen.empty()) {
    auto where = ParseListenAddress(a.metrics_listen);
    auto listener = MetricsListener::Start(*where);
    if (!listener) return Fail(listener.error().message);
    out.metrics = std::move(*listener);
    std::fprintf(stderr, "nicbench monitor: metrics on http://%s:%d/metrics\n",
                 where->host.find(':') != std::string::npos ? ("[" + where->host + "]").c_str()
                                                            : where->host.c_str(),
                 out.metrics->port());
  }
  return out;
}

// The interface to watch: --interface, else the one that routes to the peer.
std::string WatchedInterface(const MonitorArgs& a, const engine::ClientConfig& test) {
  if (!a.iface.empty()) return a.iface;
  auto addrs = net::Resolve(test.host, test.port);
  if (!addrs || addrs->empty()) return "";
  auto iface = probes::InterfaceForPeer(addrs->front().HostString());
  return iface ? *iface : "";
}

int Replay(const MonitorArgs& a) {
  auto thresholds = MakeThresholds(a);
  if (!thresholds) {
    LogError("nicbench monitor: " + thresholds.error().message);
    return ToInt(ExitCode::kUsage);
  }
  EventWriter events(a.json, a.events);
  if (auto s = events.Open(); !s) {
    LogError("nicbench monitor: " + s.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  job::MonitorSinks sinks;
  sinks.event = [&events](const record::MonitorEvent& e) { events.Write(e); };
  auto s = job::ReplayMonitor(a.replay, a.id.empty() ? "replay" : a.id, *thresholds, sinks);
  if (!s) {
    LogError("nicbench monitor: " + s.error().message);
    return ToInt(ExitCode::kEnvironment);
  }
  return ToInt(ExitCode::kOk);
}

int Watch(job::MonitorSpec& spec, Outputs& out) {
  int stopped_by = 0;
  job::MonitorSinks sinks;
  sinks.event = [&out](const record::MonitorEvent& e) {
    out.events->Write(e);
    // An event the store cannot take is still written above; the store's own trouble shows
    // as a store-unavailable event when a run cannot be stored either.
    if (auto s = StoreMonitorEvent(out.store, e); !s) {
      LogWarning("event " + std::to_string(e.id) + " not stored: " + s.error().ToString());
    }
  };
  sinks.run = [&out, &spec](const record::RunRecord& run) {
    return StoreMonitorRun(out.store, spec.id, run);
  };
  sinks.metrics = [&out](const record::MonitorMetrics& m) {
    if (out.metrics) out.metrics->Update(m);
  };
  sinks.woken = [&] { return Woken(spec.wake_fd, *out.events, stopped_by); };
  auto stock = job::ProbePeerIsStock(spec);
  Status s = stock ? job::RunMonitor(spec, sinks) : Status(tl::unexpected(stock.error()));
  if (spec.wake_fd >= 0) ::close(spec.wake_fd);
  if (!s && s.error().kind == ErrorKind::kInterrupted) return ToInt(ExitCode::kInterrupted);
  if (!s) {
    LogError("nicbench monitor: " + s.error().ToString());
    return ToInt(s.error().kind == ErrorKind::kOther ? ExitCode::kEnvironment
                                                     : ExitCode::kTestFailed);
  }
  return stopped_by == SIGINT ? ToInt(ExitCode::kInterrupted) : ToInt(ExitCode::kOk);
}

int Prepare(const MonitorArgs& a) {
  auto spec = MakeSpec(a);
  if (!spec) {
    LogError("nicbench monitor: " + spec.error().message);
    return ToInt(ExitCode::kUsage);
  }
  // Before any thread starts (the metrics listener's), so that every thread has the signals
  // blocked and they wait in the signalfd instead of ending the process.
  spec->wake_fd = SignalFd();
  auto store = MakeStorePlan(a.store);
  if (!store) {
    LogError("nicbench monitor: " + store.error().message);
    return ToInt(ExitCode::kUsage);
  }
  if (auto s = LoadBaseline(a, *spec); !s) {
    LogError("nicbench monitor: " + s.error().message);
    return ToInt(ExitCode::kUsage);
  }
  auto lock = PeerLock::Take(a.lock_dir.empty() ? DefaultLockDir() : a.lock_dir, a.peer,
                             spec->tests.front().port);
  if (!lock) {
    LogError("nicbench monitor: " + lock.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  auto out = OpenOutputs(a, *store);
  if (!out) {
    LogError("nicbench monitor: " + out.error().ToString());
    return ToInt(out.error().kind == ErrorKind::kOther ? ExitCode::kEnvironment : ExitCode::kUsage);
  }
  spec->id = !a.id.empty() ? a.id
                           : fmt::format("{}:{}-{}", a.peer, spec->tests.front().port,
                                         static_cast<long long>(std::time(nullptr)));
  spec->nic_interface = WatchedInterface(a, spec->tests.front());
  return Watch(*spec, *out);
}

}  // namespace

int RunMonitorCommand(int argc, char** argv) {
  CLI::App app{"nicbench monitor: watch a peer and this host, test now and then, raise events",
               "monitor"};
  MonitorArgs args;
  AddMonitorOptions(app, args);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  if (!args.replay.empty()) {
    if (!args.peer.empty() || !args.record.empty()) {
      LogError("nicbench monitor: --replay judges a recording: no PEER, no --record");
      return ToInt(ExitCode::kUsage);
    }
    return Replay(args);
  }
  if (args.peer.empty()) {
    LogError("nicbench monitor: a PEER is needed (or --replay DIR)");
    return ToInt(ExitCode::kUsage);
  }
  return Prepare(args);
}

}  // namespace nicbench::cli
