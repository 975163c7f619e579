// `nicbench agent` (docs/fleet.md): argv -> job::AgentSpec, then the agent runs until SIGTERM
// or SIGINT. This file parses and wires the agent's seam to the test `run` runs: the job's
// options through run's own parser and checks (MeshTest), the engine's client, the diagnosis.
#include <sys/signalfd.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
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
#include "cli/option_tables_fleet.h"
#include "cli/parse_args.h"
#include "job/agent.h"
#include "job/run_job.h"
#include "probes/collect_facts.h"
#include "probes/file_source.h"
#include "record/json.h"
#include "report/fleet_report.h"

namespace nicbench::cli {
namespace {

// The rows' values, then what concerns several options: the lease outlasts the heartbeat that
// renews it, and the database's URL (cli/fleet_options.h).
Result<AgentPlan> MakePlan(const AgentArgs& a) {
  AgentPlan plan;
  if (auto s = ApplyRows(a, AgentRows(), plan); !s) return tl::unexpected(s.error());
  job::AgentSpec& spec = plan.spec;
  if (std::chrono::duration<double>(spec.heartbeat).count() >= spec.terms.lease) {
    return Fail(fmt::format("--lease {} must be longer than --heartbeat {} (it is renewed then)",
                            a.lease, a.heartbeat));
  }
  auto url = FleetUrl(a.fleet);
  if (!url) return tl::unexpected(url.error());
  spec.url = *url;
  return plan;
}

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

// This host as the fleet sees it: --name (else the hostname), --address (else the name).
void FillSelf(store::FleetHost& self) {
  if (self.name.empty()) self.name = HostName();
  if (self.addresses.empty()) self.addresses = {self.name};
  self.version = kVersion;
  probes::DirFileSource files;
  self.facts = nlohmann::json(probes::CollectHostFacts(files));
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

int Serve(job::AgentSpec spec, const std::optional<ListenAddress>& metrics, int stop_fd) {
  std::unique_ptr<MetricsListener> listener;
  if (metrics) {
    auto started = MetricsListener::Start(*metrics);
    if (!started) {
      LogError("nicbench agent: " + started.error().message);
      return ToInt(ExitCode::kEnvironment);
    }
    listener = std::move(*started);
    std::fprintf(stderr, "nicbench agent: metrics on http://%s:%d/metrics\n", metrics->host.c_str(),
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
  AddRows(app, args, AgentRows());
  AddRows(app, args.fleet, FleetStoreRows());
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  auto plan = MakePlan(args);
  if (!plan) {
    LogError("nicbench agent: " + plan.error().message);
    return ToInt(ExitCode::kUsage);
  }
  // Before any thread starts, so every thread has the signals blocked.
  const int stop_fd = StopFd();
  FillSelf(plan->spec.self);
  const int code = Serve(std::move(plan->spec), plan->metrics, stop_fd);
  if (stop_fd >= 0) ::close(stop_fd);
  return code;
}

}  // namespace nicbench::cli
