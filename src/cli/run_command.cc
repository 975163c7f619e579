// `nicbench run [HOST]`: argv -> record::TestSpec (checked by record::Validate, the same check
// the server applies to a peer's parameters), then the engine's client session, then report.
// With no HOST (or --loopback) a server runs in this process on 127.0.0.1 and an ephemeral port
// and the test runs forward then reverse; -J then prints one document per line (JSON Lines),
// forward first, each one an iperf3-shaped document.
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

#include "analysis/directions.h"
#include "base/exit_code.h"
#include "base/log.h"
#include "base/units.h"
#include "cli/auth_options.h"
#include "cli/commands.h"
#include "cli/file_options.h"
#include "cli/iperf3_options.h"
#include "cli/loopback_server.h"
#include "cli/option_tables.h"
#include "cli/output_options.h"
#include "cli/parse_args.h"
#include "cli/progress_line.h"
#include "cli/rr_options.h"
#include "cli/run_arguments.h"
#include "cli/store_options.h"
#include "cli/under_load_options.h"
#include "diagnosis/diagnose.h"
#include "engine/client.h"
#include "probes/far_capture.h"
#include "record/test_spec.h"
#include "report/json_report.h"
#include "report/text_report.h"
#include "stand/stand.h"

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

// One test against plan.client's server, with the probes beside it under --under-load.
engine::ClientOutcome RunTest(const RunPlan& plan, const engine::IntervalSink& sink) {
  if (plan.under_load) return job::RunUnderLoad(plan.client, *plan.under_load, sink);
  return engine::RunClient(plan.client, sink);
}

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

// A test that runs across a `nicbench stand` link names the stand's profile in its record, so a
// reader sees the link limit beside the shaping fact of the interface. Only interfaces a stand
// made can match, so this never runs a command for an ordinary interface.
void NameStandProfile(record::RunRecord& run) {
  const std::string& iface = run.local.nic.interface;
  // Stand host devices are named "<stand>-h<N>-e0" (stand::HostDevice).
  const bool stand_like =
      iface.size() > 3 && iface.ends_with("-e0") && iface.find("-h") != std::string::npos;
  if (run.local.nic.loopback || !stand_like) return;
  auto stands = stand::List();
  if (!stands) return;
  for (const stand::StandInfo& info : *stands) {
    for (const stand::HostInfo& host : info.hosts) {
      if (host.interface != iface) continue;
      run.stand_profile = std::string(stand::ProfileName(info.spec.profile));
      if (run.label.empty()) run.label = "stand " + info.spec.name + " host " + host.host;
      return;
    }
  }
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

ExitCode ExitFor(const engine::ClientOutcome& outcome) {
  if (outcome.ok()) return ExitCode::kOk;
  switch (outcome.status.error().kind) {
    case ErrorKind::kInterrupted: return ExitCode::kInterrupted;
    case ErrorKind::kPeerCannot: return ExitCode::kEnvironment;
    default: return ExitCode::kTestFailed;
  }
}

// The runs the store keeps: every finished run, and one interrupted after data moved, marked
// incomplete (50 s of a 60 s run are worth keeping; history and compare leave it out unless
// asked, docs/store.md). A run that failed otherwise is not kept: its figures may be the
// failure's.
bool Kept(const engine::ClientOutcome& outcome) {
  return outcome.ok() || (ExitFor(outcome) == ExitCode::kInterrupted && outcome.record.incomplete);
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

// Live terminal lines: the column header before the first interval, then each interval with
// this host's compact view and, from a nicbench server, the server's (live samples); a server
// sample that arrives after its interval was printed gets a line of its own.
engine::IntervalSink LiveSink(const RunPlan& plan) {
  if (plan.json) return {};
  if (!plan.text) return JsonStreamSink(plan.output);
  auto first = std::make_shared<bool>(true);
  const TextOutput out = plan.out;
  const record::TestSpec& spec = plan.client.spec;
  // -t 0 runs until interrupted: no end to count down to.
  const bool timed = spec.bytes == 0 && spec.blocks == 0 && spec.duration.count() > 0;
  // Erased when the last copy of the sink goes, i.e. when the test's client returns.
  auto progress = std::make_shared<ProgressLine>(
      timed ? (spec.duration + spec.omit).count() / 1000.0 : 0.0, StdoutIsTerminal());
  return [first, out, progress](
             const record::RunRecord& run, const record::IntervalRecord* interval,
             const record::HostInterval* local, const record::HostInterval* remote) {
    if (interval == nullptr && remote == nullptr) {
      // The streams are connected.
      progress->Print(out, report::RenderConnectedLines(run, out.verbose()));
    } else if (interval == nullptr) {
      progress->Print(out, report::RenderHostLine("remote", *remote));
    } else {
      std::string text = *first ? report::RenderIntervalHeader(run) : "";
      *first = false;
      progress->Update(*interval, run.local.role != record::Role::kServer);
      progress->Print(out, text + report::RenderIntervalLine(run, *interval, local, remote));
    }
  };
}

// A stock iperf3 peer sends no EndpointRecord: the capture's stands in for it. Its one sample
// was taken on the far end's clock while the test ran; it is placed after the warm-up so it
// counts (analysis::CountedSamples). A nicbench peer's own record is kept.
void AttachRemoteFacts(const RunPlan& plan, record::RunRecord& run) {
  if (!plan.remote_facts || run.remote.known()) return;
  record::EndpointRecord end = plan.remote_facts->end;
  end.role = record::Role::kServer;
  end.software = "iperf3 (facts from a nicbench collect capture)";
  const double omit = std::chrono::duration<double>(run.spec.omit).count();
  for (record::HostInterval& sample : end.samples) {
    sample.start += omit;
    sample.end += omit;
  }
  run.remote = std::move(end);
}

// The failure in the user's terms; the protocol's account of it with -d, else a pointer to it.
void LogFailure(const RunPlan& plan, const engine::ClientOutcome& outcome) {
  const std::string error = outcome.record.error.value_or("test failed");
  if (outcome.detail.empty()) {
    LogError(error);
  } else if (plan.out.debug()) {
    LogError(error);
    LogError("(protocol) " + outcome.detail);
  } else {
    LogError(error + " (-d shows the protocol detail)");
  }
}

int RunAgainstHost(const RunPlan& plan) {
  engine::ClientOutcome outcome = RunTest(plan, LiveSink(plan));
  NameStandProfile(outcome.record);
  AttachRemoteFacts(plan, outcome.record);
  if (outcome.ok()) {
    outcome.record.findings = diagnosis::Diagnose(outcome.record);
  }
  if (plan.json) {
    report::WriteJson(outcome.record, stdout);
  } else if (!plan.text) {
    JsonStreamEnd(plan.output, outcome.record);
  } else if (outcome.ok() || outcome.record.incomplete) {
    plan.out.Print(report::RenderSummary(outcome.record));
    if (plan.out.verbose()) plan.out.Print(VerboseSummary(outcome.record));
  }
  if (plan.text && !outcome.ok()) LogFailure(plan, outcome);
  std::vector<const record::RunRecord*> finished, kept;
  if (outcome.ok()) finished.push_back(&outcome.record);
  if (Kept(outcome)) kept.push_back(&outcome.record);
  int code = WriteHtmlReport(plan.output, plan.html_file, finished, ToInt(ExitFor(outcome)));
  return StoreRuns(plan.store, kept, code);
}

// The two directions side by side and the pair's findings: printed under the two summaries,
// the last JSON line's "directions" member, the HTML page's first section. Null JSON when
// either direction did not finish (nothing to compare).
// The implicit noexcept move of nlohmann::json, whose invariant assertion clang-tidy 14 reads as
// a possible throw (as store.h's Experiment):
// NOLINTNEXTLINE(bugprone-exception-escape)
struct PairReport {
  std::vector<analysis::DirectionRow> rows;
  std::vector<record::Finding> findings;
  nlohmann::ordered_json json;
};

// Diagnoses one direction of the pair; the second also gets the pair's findings, which the record
// keeps (the store and -J's second document carry them, as before) and `pair` shows again
// beside the table.
void DiagnoseDirection(std::vector<engine::ClientOutcome>& outcomes, PairReport& pair) {
  record::RunRecord& run = outcomes.back().record;
  run.findings = diagnosis::Diagnose(run);
  if (outcomes.size() != 2) return;
  pair.findings = diagnosis::DiagnosePair(outcomes[0].record, run);
  pair.rows = analysis::CompareDirections(outcomes[0].record, run);
  pair.json = report::DirectionsJson(pair.rows, pair.findings);
}

// Runs one direction against plan.client's server, diagnoses it and prints its summary.
ExitCode RunOneDirection(RunPlan& plan, int i, std::vector<engine::ClientOutcome>& outcomes,
                         PairReport& pair) {
  plan.client.spec.direction = i ? record::Direction::kReverse : record::Direction::kForward;
  if (plan.text) {
    plan.out.Print(fmt::format("{}(client -> server {})\n", i ? "\n" : "",
                               i ? "reverse: server sends" : "forward: client sends"));
  }
  outcomes.push_back(RunTest(plan, LiveSink(plan)));
  const ExitCode code = ExitFor(outcomes.back());
  record::RunRecord& run = outcomes.back().record;
  NameStandProfile(run);
  AttachRemoteFacts(plan, run);
  if (code == ExitCode::kOk) DiagnoseDirection(outcomes, pair);
  if (!plan.json && !plan.text) JsonStreamEnd(plan.output, run);
  if (plan.text && (code == ExitCode::kOk || run.incomplete)) {
    // The run's own findings only: the pair's are added below, after the table that shows them.
    plan.out.Print(report::RenderSummary(run));
    if (plan.out.verbose()) plan.out.Print(VerboseSummary(run));
  }
  if (plan.text && code != ExitCode::kOk) LogFailure(plan, outcomes.back());
  if (!pair.json.is_null()) {
    diagnosis::AddFindings(run.findings, pair.findings);
    if (plan.text) plan.out.Print(report::RenderDirections(pair.rows, pair.findings));
  }
  return code;
}

// Forward then reverse against plan.client's server, each diagnosed; then the two side by side
// with the pair's findings (asymmetry needs both directions): text after each run and the table
// at the end, JSON Lines at the end (the table in the second line), HTML with the table first.
int RunBothDirections(RunPlan plan) {
  std::vector<engine::ClientOutcome> outcomes;
  PairReport pair;
  ExitCode code = ExitCode::kOk;
  for (int i = 0; i < 2 && code == ExitCode::kOk; ++i) {
    code = RunOneDirection(plan, i, outcomes, pair);
  }
  if (plan.json) {
    std::vector<record::RunRecord> records;
    records.reserve(outcomes.size());
    for (const auto& o : outcomes) records.push_back(o.record);
    std::fputs((pair.json.is_null() ? report::RenderJsonLines(records)
                                    : report::RenderJsonLines(records, pair.json))
                   .c_str(),
               stdout);
  }
  std::vector<const record::RunRecord*> finished, kept;
  for (const auto& o : outcomes) {
    if (o.ok()) finished.push_back(&o.record);
    if (Kept(o)) kept.push_back(&o.record);
  }
  return StoreRuns(plan.store, kept,
                   WriteHtmlReport(plan.output, plan.html_file, finished, ToInt(code), pair.json));
}

// The main job: an in-process server (cli/loopback_server.h), then forward and reverse tests.
int RunLoopback(RunPlan plan) {
  auto server = LoopbackServer::Start();
  if (!server) {
    PrintError(plan.json, "cannot start the loopback server: " + server.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  plan.client.host = (*server)->host();
  plan.client.port = (*server)->port();
  return RunBothDirections(std::move(plan));
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
  int code = plan->loopback          ? RunLoopback(*plan)
             : plan->both_directions ? RunBothDirections(*plan)
                                     : RunAgainstHost(*plan);
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
