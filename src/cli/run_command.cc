// `nicbench run [HOST]`: argv -> record::TestSpec (checked by record::Validate, the same check
// the server applies to a peer's parameters) -> job::RunJobSpec, then the run job
// (job/run_job.h) with the renderers the options chose (cli/run_output.h), then the exit code.
// With no HOST (or --loopback) the job runs a server in this process on 127.0.0.1 and an
// ephemeral port and tests forward then reverse; -J then prints one document per line (JSON
// Lines), forward first, each one an iperf3-shaped document.
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
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
#include "cli/auth_options.h"
#include "cli/commands.h"
#include "cli/file_options.h"
#include "cli/iperf3_options.h"
#include "cli/option_tables.h"
#include "cli/output_options.h"
#include "cli/parse_args.h"
#include "cli/rr_options.h"
#include "cli/run_arguments.h"
#include "cli/run_output.h"
#include "cli/store_options.h"
#include "cli/under_load_options.h"
#include "engine/client.h"
#include "job/run_job.h"
#include "probes/far_capture.h"
#include "record/test_spec.h"
#include "report/json_report.h"

namespace nicbench::cli {
namespace {

struct RunPlan {
  engine::ClientConfig client;
  bool json = false;
  bool text = true;  // lines for people: neither -J nor --json-stream
  bool loopback = false;
  StorePlan store;
  bool both_directions = false;  // forward then reverse, then the pair's findings
  OutputArgs output;
  ReportFile html_file;  // open when --html was given
  int client_cpu = -1;   // -A N
  // --remote-facts DIR: the far end's capture, for a peer that sends no facts (stock iperf3).
  std::optional<probes::FarCapture> remote_facts;
  TextOutput out;                               // -T, -V, -d
  std::optional<job::ProbeOptions> under_load;  // --under-load: probes beside each test
};

// The run's own table, then each concern's group (cli/option_tables.cc), in --help's order.
void AddOptions(CLI::App& app, RunArgs& a) {
  AddRows(app, a, RunRows());
  AddStoreWriteOptions(app, a.store);
  AddOutputOptions(app, a.output);
  AddIperf3RunOptions(app, a.drop_in);
  AddFileOptions(app, a.file);
  AddRrOptions(app, a.rr);
  AddUnderLoadOptions(app, a.under_load);
  AddRunAuthOptions(app, a.auth);
}

// The options whose meaning depends on others, after the rows have set their members: the
// exclusive pairs, the zero-copy method, the address family, UDP's default rate and the port.
Status FillDerived(const RunArgs& a, RunPlan& plan) {
  record::TestSpec& spec = plan.client.spec;
  if (!a.bytes.empty() && !a.blocks.empty()) return Fail("-n and -k cannot be used together");
  if (a.ipv4 && a.ipv6) return Fail("-4 and -6 cannot be used together");
  if (a.sendfile && !a.zerocopy.empty()) return Fail("use either -Z or --zerocopy, not both");
  if (a.sendfile || a.zerocopy == "sendfile") {
    spec.zero_copy = record::ZeroCopy::kSendfile;
  } else if (a.zerocopy == "msg") {
    spec.zero_copy = record::ZeroCopy::kMsgZerocopy;
  } else if (!a.zerocopy.empty()) {
    return Fail(fmt::format("--zerocopy: '{}' is not one of sendfile, msg", a.zerocopy));
  }
  spec.family = a.ipv4 ? record::AddressFamily::kIpv4
                       : (a.ipv6 ? record::AddressFamily::kIpv6 : record::AddressFamily::kAny);
  if (a.rate.empty() && spec.transport == record::Transport::kUdp) {
    spec.rate_bits_per_second = 1000000;  // iperf3's UDP default
  }
  if (plan.client.port == 0 && !plan.loopback) return Fail("-p: port 0 is not a server port");
  return Ok();
}

Result<RunPlan> MakePlan(const RunArgs& a) {
  RunPlan plan;
  plan.json = a.json && !a.output.json_stream;  // the stream replaces the document
  plan.text = !a.json && !a.output.json_stream;
  plan.client.sample_host = !a.no_samples;
  plan.client.live_samples = !a.json;  // both ends on the live lines; JSON has them at the end
  if (a.loopback && !a.host.empty()) return Fail("--loopback takes no host");
  plan.loopback = a.loopback || a.host.empty();
  plan.client.host = a.host;
  record::TestSpec& spec = plan.client.spec;
  spec.transport = a.udp ? record::Transport::kUdp : record::Transport::kTcp;
  if (a.reverse && a.bidir) return Fail("-R and --bidir cannot be used together");
  if (plan.loopback && (a.reverse || a.bidir)) {
    return Fail("loopback mode runs both directions itself; -R/--bidir need a HOST");
  }
  plan.both_directions = a.both_directions;
  if (a.both_directions && (a.reverse || a.bidir)) {
    return Fail("--both-directions runs forward and reverse itself; drop -R/--bidir");
  }
  spec.direction = a.bidir
                       ? record::Direction::kBidirectional
                       : (a.reverse ? record::Direction::kReverse : record::Direction::kForward);
  // --rr/--crr take -l and -n for themselves (message sizes, transactions).
  RunArgs bulk = a;
  if (auto s = ApplyRrArgs(a.rr, bulk.length, bulk.bytes, spec); !s)
    return tl::unexpected(s.error());
  if (spec.rr.enabled() && (plan.loopback || a.both_directions)) {
    return Fail("--rr/--crr need a HOST running `nicbench serve` (and no --both-directions)");
  }
  if (auto s = ApplyRows(bulk, RunRows(), plan.client); !s) return tl::unexpected(s.error());
  if (auto s = FillDerived(bulk, plan); !s) return tl::unexpected(s.error());
  if (spec.rr.enabled() && a.rate.empty()) spec.rate_bits_per_second = 0;  // no UDP default
  if (auto s = ApplyIperf3RunArgs(a.drop_in, spec, plan.client, &plan.client_cpu); !s) {
    return tl::unexpected(s.error());
  }
  plan.out = TextOutput(a.title, a.drop_in.verbose, a.drop_in.debug, a.output.timestamps);
  if (spec.transport == record::Transport::kUdp &&
      (spec.mss_bytes != 0 || spec.no_delay || !spec.congestion.empty())) {
    return Fail("-M, -N and -C apply to TCP only");
  }
  if (auto problem = record::Validate(spec)) return Fail(problem->message);
  auto probes = ApplyUnderLoadArgs(a.under_load, spec);
  if (!probes) return tl::unexpected(probes.error());
  plan.under_load = *probes;
  auto store = MakeStorePlan(a.store);
  if (!store) return tl::unexpected(store.error());
  plan.store = std::move(*store);
  plan.output = a.output;
  return plan;
}

// The options of `a` that name a file to read or write, as the user would spell them.
std::optional<std::string> PathOption(const RunArgs& a) {
  if (!a.file.file.empty()) return "-F " + a.file.file;
  if (!a.output.html.empty()) return "--html " + a.output.html;
  if (!a.drop_in.logfile.empty()) return "--logfile " + a.drop_in.logfile;
  if (!a.store.store.empty()) return "--store " + a.store.store;
  if (a.store.no_store) return std::string("--no-store");
  return std::nullopt;
}

// Prints a usage or run failure: a JSON `error` member in --json mode, a line on stderr always
// for people when not in JSON mode.
void PrintError(bool json, const std::string& message) {
  if (json) {
    std::fputs(report::RenderJsonError(message).c_str(), stdout);
  } else {
    LogError(message);
  }
}

// A signalfd for SIGINT/SIGTERM so the client loop sees an interrupt as an fd event. SIGHUP
// (the terminal went away) and SIGPIPE (stdout's reader went away: `nicbench run HOST | head`)
// end the test the same way: the server is told (CLIENT_TERMINATE) and the exit code is 130,
// instead of dying by the signal. With SIGPIPE blocked, the write that raised it fails with
// EPIPE and the signal waits in the signalfd.
int InterruptFd() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGHUP);
  sigaddset(&mask, SIGPIPE);
  if (pthread_sigmask(SIG_BLOCK, &mask, nullptr) != 0) return -1;
  return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

// The job the plan describes (job/run_job.h), with no argv in it.
job::RunJobSpec JobSpecOf(const RunPlan& plan) {
  job::RunJobSpec spec;
  spec.client = plan.client;
  spec.loopback = plan.loopback;
  spec.both_directions = plan.both_directions;
  spec.under_load = plan.under_load;
  spec.remote_facts = plan.remote_facts;
  if (plan.store.location) {
    spec.store = job::StoreTarget{*plan.store.location, plan.store.labels, StoreBusyTimeout()};
  }
  return spec;
}

RunOutputs OutputsOf(const RunPlan& plan) {
  RunOutputs outputs;
  outputs.json = plan.json;
  outputs.text = plan.text;
  outputs.paired = plan.loopback || plan.both_directions;
  outputs.output = plan.output;
  outputs.html_file = plan.html_file;
  outputs.out = plan.out;
  return outputs;
}

// Runs the plan's job with the renderers its options chose; the exit code.
int ExecuteRun(const RunPlan& plan) {
  const RunOutputs outputs = OutputsOf(plan);
  RunLive live(outputs);
  auto result = job::RunJob(JobSpecOf(plan), live);
  if (!result) {
    PrintError(plan.json, result.error().message);
    return ToInt(ExitCode::kEnvironment);
  }
  return FinishRun(outputs, *result);
}

}  // namespace

// Why a run is refused before its test, and the exit code that says so.
struct Refusal {
  ExitCode code = ExitCode::kUsage;
  std::string message;  // after "nicbench run: "
};
using MaybeRefusal = std::optional<Refusal>;

MaybeRefusal AddHtmlFile(const RunArgs& args, RunPlan& plan) {
  if (args.output.html.empty()) return std::nullopt;
  auto file = OpenReportFile(args.output.html);
  if (!file) return Refusal{ExitCode::kUsage, file.error().message};
  plan.html_file = std::move(*file);
  return std::nullopt;
}

MaybeRefusal AddAuth(const RunArgs& args, RunPlan& plan) {
  if ((!args.auth.username.empty() || !args.auth.server_key.empty()) && plan.loopback) {
    return Refusal{ExitCode::kUsage,
                   "--username and --server-key need a HOST (the loopback server is this "
                   "process)"};
  }
  if (auto s = ApplyServerKey(args.auth, plan.client); !s) {
    return Refusal{ExitCode::kUsage, s.error().ToString()};
  }
  auto auth = MakeClientAuth(args.auth);
  if (!auth) return Refusal{ExitCode::kUsage, auth.error().ToString()};
  plan.client.auth = *auth;
  return std::nullopt;
}

MaybeRefusal AddRemoteFacts(const RunArgs& args, RunPlan& plan) {
  if (args.remote_facts.empty()) return std::nullopt;
  if (plan.loopback) {
    return Refusal{ExitCode::kUsage, "--remote-facts describes a far end; it needs a HOST"};
  }
  auto capture = probes::ReadFarCapture(args.remote_facts);
  if (!capture) {
    return Refusal{ExitCode::kEnvironment, "--remote-facts " + capture.error().ToString()};
  }
  plan.remote_facts = std::move(*capture);
  return std::nullopt;
}

MaybeRefusal AddFile(const RunArgs& args, RunPlan& plan) {
  if (!args.file.file.empty() && (plan.loopback || plan.both_directions)) {
    return Refusal{ExitCode::kUsage,
                   "-F needs a HOST and one direction (loopback and --both-directions would "
                   "read and write the file in turn)"};
  }
  if (auto problem = ApplyRunFileArgs(args.file, plan.client.spec, &plan.client.file)) {
    return Refusal{problem->code, problem->message};
  }
  if (args.time.empty() && args.bytes.empty() && args.blocks.empty()) {
    // As iperf3: a client sending a file without -t/-n/-k sends the file's length.
    plan.client.spec.bytes = SendFileBytes(plan.client.file, plan.client.spec);
  }
  return std::nullopt;
}

// Everything checked and opened before the test, in the order a user fixes them: the options,
// the files named, the store (so no test time is lost to a store that cannot take the run).
MaybeRefusal PrepareRun(const RunArgs& args, RunPlan& plan) {
  for (auto step : {AddHtmlFile, AddAuth, AddRemoteFacts, AddFile}) {
    if (auto refusal = step(args, plan)) return refusal;
  }
  if (auto s = CheckStoreBeforeTheRun(plan.store); !s) {
    return Refusal{ExitCode::kStore, "the test was not run: the result store cannot take it: " +
                                         s.error().ToString()};
  }
  if (auto s = StartIperf3Run(plan.client_cpu, plan.out, plan.client.spec); !s) {
    return Refusal{ExitCode::kEnvironment, s.error().message};
  }
  return std::nullopt;
}

int RunRunCommand(int argc, char** argv) {
  CLI::App app{"nicbench run: throughput test against a nicbench or iperf3 server", "run"};
  RunArgs args;
  AddOptions(app, args);
  // A parse error has no parsed -J yet: look for it in argv, so -J still gets a JSON error.
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg(argv[i]);
    json = json || arg == "-J" || arg == "--json" || arg == "--json-stream";
  }
  RepeatsTakeTheLast(app);
  if (auto code =
          ParseArgs(app, argc, argv, [json](const std::string& m) { PrintError(json, m); })) {
    return *code;
  }
  if (auto s = PrepareIperf3Run(app, args.rate, args.drop_in); !s) {
    PrintError(args.json, "nicbench run: " + s.error().message);
    return ToInt(ExitCode::kUsage);
  }
  auto plan = MakePlan(args);
  if (!plan) {
    PrintError(args.json, "nicbench run: " + plan.error().message);
    return ToInt(ExitCode::kUsage);
  }
  if (auto refusal = PrepareRun(args, *plan)) {
    PrintError(args.json, "nicbench run: " + refusal->message);
    return ToInt(refusal->code);
  }
  plan->client.stop_fd = InterruptFd();
  const int code = ExecuteRun(*plan);
  if (plan->client.stop_fd >= 0) close(plan->client.stop_fd);
  return code;
}

namespace {

// Parses run's options from a list that is not the user's argv into `a` (`app` holds them):
// why it cannot, or nullopt.
std::optional<std::string> ParseListed(CLI::App& app, RunArgs& a,
                                       const std::vector<std::string>& args) {
  AddOptions(app, a);
  RepeatsTakeTheLast(app);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return std::string("--help");
  } catch (const CLI::ParseError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> StoredRunArgumentsProblem(const std::vector<std::string>& args) {
  CLI::App app{"", "run"};
  RunArgs a;
  if (auto problem = ParseListed(app, a, args)) return problem;
  if (auto path = PathOption(a)) {
    return *path +
           ": a matrix's run options cannot name a file (its definition is stored, and a "
           "stored definition never chooses a path)";
  }
  // Without --logfile (refused above) this only checks; MakePlan opens nothing.
  if (auto s = PrepareIperf3Run(app, a.rate, a.drop_in); !s) return s.error().message;
  auto plan = MakePlan(a);
  if (!plan) return plan.error().message;
  return std::nullopt;
}

Result<std::vector<engine::ClientConfig>> RunArgumentsToTests(
    const std::vector<std::string>& args) {
  CLI::App app{"", "run"};
  RunArgs a;
  if (auto problem = ParseListed(app, a, args)) return Fail(*problem);
  if (auto path = PathOption(a)) return Fail(*path + ": the monitor stores its own runs");
  if (a.json || a.output.json_stream || !a.output.html.empty()) {
    return Fail("-J, --json-stream and --html: the monitor writes its own output");
  }
  if (a.under_load.on) return Fail("--under-load: the monitor runs its own latency probes");
  if (auto s = PrepareIperf3Run(app, a.rate, a.drop_in); !s) return tl::unexpected(s.error());
  auto plan = MakePlan(a);
  if (!plan) return tl::unexpected(plan.error());
  if (plan->loopback) return Fail("a monitor's tests need its PEER, not loopback");
  plan->client.live_samples = false;
  if (auto refusal = AddAuth(a, *plan)) return Fail(refusal->message);
  std::vector<engine::ClientConfig> tests = {plan->client};
  if (plan->both_directions) {
    tests[0].spec.direction = record::Direction::kForward;
    tests.push_back(plan->client);
    tests[1].spec.direction = record::Direction::kReverse;
  }
  return tests;
}

}  // namespace nicbench::cli
