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
#include "cli/option_tables.h"
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

void AddMonitorOptions(CLI::App& app, MonitorArgs& a) {
  AddRows(app, a, MonitorRows());
  AddStoreWriteOptions(app, a.store);
}

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

using std::chrono::milliseconds;

// The rows' values (durations, rates, thresholds), each checked against its range.
Result<job::MonitorSpec> ApplyMonitorRows(const MonitorArgs& a) {
  job::MonitorSpec spec;
  spec.peer = a.peer;
  if (auto s = ApplyRows(a, MonitorRows(), spec); !s) return tl::unexpected(s.error());
  return spec;
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
  auto applied = ApplyMonitorRows(a);
  if (!applied) return applied;
  job::MonitorSpec& spec = *applied;
  if (auto s = FillTests(a, spec); !s) return tl::unexpected(s.error());
  if (!a.metrics_listen.empty()) {
    if (auto where = ParseListenAddress(a.metrics_listen); !where) {
      return tl::unexpected(where.error());
    }
  }
  return applied;
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

// Reads the pending signals: SIGHUP reopens the log and the events file (the log first, so a
// warning of the other lands in the new log); the others stop (`stopped_by`).
bool Woken(int fd, LogFile& log, EventWriter& events, int& stopped_by) {
  signalfd_siginfo info{};
  while (::read(fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    if (info.ssi_signo == SIGHUP) {
      log.Reopen();
      events.Reopen();
    } else {
      stopped_by = static_cast<int>(info.ssi_signo);
    }
  }
  return stopped_by != 0;
}

// The outputs a monitor opens before it starts, in the order a user fixes them.
struct Outputs {
  std::unique_ptr<LogFile> log;
  StorePlan store;
  std::unique_ptr<EventWriter> events;
  std::unique_ptr<MetricsListener> metrics;
};

// Usage was checked before (MakeSpec, MakeStorePlan): every error here is the machine's.
Result<Outputs> OpenOutputs(const MonitorArgs& a, StorePlan store) {
  Outputs out;
  // First: the lines below (the metrics address) and those of the run are the log's.
  out.log = std::make_unique<LogFile>(a.log);
  if (auto s = out.log->Open(); !s) return Fail(s.error().ToString());
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
  auto applied = ApplyMonitorRows(a);
  if (!applied) {
    LogError("nicbench monitor: " + applied.error().message);
    return ToInt(ExitCode::kUsage);
  }
  LogFile log(a.log);
  EventWriter events(a.json, a.events);
  if (auto s = log.Open(); !s) {
    LogError("nicbench monitor: " + s.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  if (auto s = events.Open(); !s) {
    LogError("nicbench monitor: " + s.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  job::MonitorSinks sinks;
  sinks.event = [&events](const record::MonitorEvent& e) { events.Write(e); };
  auto s = job::ReplayMonitor(a.replay, a.id.empty() ? "replay" : a.id, applied->thresholds, sinks);
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
  sinks.woken = [&] { return Woken(spec.wake_fd, *out.log, *out.events, stopped_by); };
  auto stock = job::ProbePeerIsStock(spec);
  if (stock) {
    LogInfo(fmt::format("monitor {}: watching {} port {}{}, interface {}", spec.id, spec.peer,
                        spec.tests.front().port, *stock ? " (a stock iperf3)" : "",
                        spec.nic_interface.empty() ? "unknown" : spec.nic_interface));
  }
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
