// `nicbench agent` (docs/fleet.md): argv -> job::AgentSpec, then the agent runs until SIGTERM
// or SIGINT. This file parses and wires the agent's seam to the test `run` runs: the job's
// options through run's own parser and checks (MeshTest), the engine's client, the diagnosis.
#include <sys/signalfd.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "base/log.h"
#include "base/units.h"
#include "base/version.h"
#include "cli/commands.h"
#include "cli/fleet_options.h"
#include "cli/metrics_listener.h"
#include "cli/parse_args.h"
#include "job/agent.h"
#include "job/run_job.h"
#include "probes/collect_facts.h"
#include "probes/file_source.h"
#include "record/json.h"
#include "report/fleet_report.h"

namespace nicbench::cli {
namespace {

struct AgentArgs {
  std::string name, poll = "1s", heartbeat = "5s", lease = "30s", offline_after = "60s",
                    metrics_listen;
  std::vector<std::string> addresses;
  FleetArgs fleet;
};

void AddAgentOptions(CLI::App& app, AgentArgs& a) {
  app.add_option("--name", a.name, "this host's name in the fleet (default: its hostname)");
  app.add_option("--address", a.addresses,
                 "where this host's `nicbench serve` answers (repeatable; default: --name)");
  app.add_option("--poll", a.poll, "time between claims while idle (default 1s)");
  app.add_option("--heartbeat", a.heartbeat,
                 "time between heartbeats and lease renewals (default 5s)");
  app.add_option("--lease", a.lease,
                 "a claim lasts this long unless renewed; a dead agent's job runs again after\n"
                 "it (default 30s, more than --heartbeat)");
  app.add_option("--offline-after", a.offline_after,
                 "a host without a heartbeat this long is offline (default 60s)");
  app.add_option("--metrics-listen", a.metrics_listen,
                 "serve Prometheus metrics at http://ADDR:PORT/metrics");
  AddFleetStoreOptions(app, a.fleet);
}

Result<std::chrono::milliseconds> Duration(const std::string& text, const char* name) {
  auto d = ParseDuration(text);
  if (!d || d->count() < 10 || *d > std::chrono::hours(24)) {
    return Fail(
        fmt::format("{} {}: expected a duration of 10ms .. 24h (500ms, 5s, 1m)", name, text));
  }
  return *d;
}

Result<job::AgentSpec> MakeSpec(const AgentArgs& a) {
  job::AgentSpec spec;
  auto url = FleetUrl(a.fleet);
  if (!url) return tl::unexpected(url.error());
  spec.url = *url;
  auto poll = Duration(a.poll, "--poll");
  auto beat = Duration(a.heartbeat, "--heartbeat");
  auto lease = Duration(a.lease, "--lease");
  auto offline = Duration(a.offline_after, "--offline-after");
  for (const auto* d : {&poll, &beat, &lease, &offline}) {
    if (!*d) return tl::unexpected(d->error());
  }
  if (*lease <= *beat) {
    return Fail(fmt::format("--lease {} must be longer than --heartbeat {} (it is renewed then)",
                            a.lease, a.heartbeat));
  }
  spec.poll = *poll;
  spec.heartbeat = *beat;
  spec.terms.lease = std::chrono::duration<double>(*lease).count();
  spec.terms.offline_after = std::chrono::duration<double>(*offline).count();
  return spec;
}

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

// This host as the fleet sees it.
store::FleetHost Self(const AgentArgs& a) {
  store::FleetHost self;
  self.name = a.name.empty() ? HostName() : a.name;
  self.addresses = a.addresses.empty() ? std::vector<std::string>{self.name} : a.addresses;
  self.version = kVersion;
  probes::DirFileSource files;
  self.facts = nlohmann::json(probes::CollectHostFacts(files));
  return self;
}

// The test `run HOST OPTIONS` would run, through run's own job (job/run_job.h): named after a
// stand it crossed and diagnosed as `run` does; the agent stores it itself, with its job.
job::AgentTests Tests() {
  job::AgentTests tests;
  tests.prepare = [](const std::string& peer, const std::vector<std::string>& words) {
    return MeshTest(peer, words);
  };
  tests.run = [](const engine::ClientConfig& config) -> Result<record::RunRecord> {
    job::RunJobSpec spec;
    spec.client = config;
    Result<job::RunJobResult> result = job::RunJob(spec);
    if (!result) return tl::unexpected(result.error());
    if (result->runs.empty()) return Fail(ErrorKind::kOther, "the run job ran no test");
    engine::ClientOutcome& outcome = result->runs.front();
    if (!outcome.ok()) {
      return Fail(outcome.status.error().kind,
                  outcome.record.error.value_or(outcome.status.error().message));
    }
    return std::move(outcome.record);
  };
  return tests;
}

int StopFd() {
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGINT, SIGTERM, SIGPIPE}) sigaddset(&mask, sig);
  if (pthread_sigmask(SIG_BLOCK, &mask, nullptr) != 0) return -1;
  sigdelset(&mask, SIGPIPE);
  return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

int Serve(job::AgentSpec spec, const AgentArgs& a, int stop_fd) {
  std::unique_ptr<MetricsListener> listener;
  if (!a.metrics_listen.empty()) {
    auto where = ParseListenAddress(a.metrics_listen);
    if (!where) {
      LogError("nicbench agent: " + where.error().message);
      return ToInt(ExitCode::kUsage);
    }
    auto started = MetricsListener::Start(*where);
    if (!started) {
      LogError("nicbench agent: " + started.error().message);
      return ToInt(ExitCode::kEnvironment);
    }
    listener = std::move(*started);
    std::fprintf(stderr, "nicbench agent: metrics on http://%s:%d/metrics\n", where->host.c_str(),
                 listener->port());
    spec.metrics = [l = listener.get()](const record::AgentMetrics& m) {
      l->UpdateText(report::RenderAgentPrometheus(m));
    };
  }
  const std::string name = spec.self.name;
  job::Agent agent(std::move(spec), Tests());
  std::fprintf(stderr, "nicbench agent: %s joins the fleet\n", name.c_str());
  if (auto s = agent.Run(stop_fd); !s) {
    LogError("nicbench agent: " + s.error().message);
    return ToInt(ExitCode::kStore);
  }
  signalfd_siginfo info{};
  const bool interrupted =
      ::read(stop_fd, &info, sizeof info) == sizeof info && info.ssi_signo == SIGINT;
  return ToInt(interrupted ? ExitCode::kInterrupted : ExitCode::kOk);
}

}  // namespace

int RunAgentCommand(int argc, char** argv) {
  CLI::App app{"nicbench agent: run the fleet's jobs for this host (docs/fleet.md)", "agent"};
  AgentArgs args;
  AddAgentOptions(app, args);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  auto spec = MakeSpec(args);
  if (!spec) {
    LogError("nicbench agent: " + spec.error().message);
    return ToInt(ExitCode::kUsage);
  }
  // Before any thread starts, so every thread has the signals blocked.
  const int stop_fd = StopFd();
  spec->self = Self(args);
  const int code = Serve(std::move(*spec), args, stop_fd);
  if (stop_fd >= 0) ::close(stop_fd);
  return code;
}

}  // namespace nicbench::cli
