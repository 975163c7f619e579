#include "cli/run_output.h"

#include <cstdio>
#include <vector>

#include <fmt/format.h>

#include "base/log.h"
#include "report/json_report.h"
#include "report/json_stream.h"
#include "report/text_report.h"

namespace nicbench::cli {

void RunLive::TestStarting(const engine::ClientConfig& test) {
  first_interval_ = true;
  stream_started_ = false;
  const record::TestSpec& spec = test.spec;
  if (!outputs_.text) return;
  if (outputs_.paired) {
    const bool reverse = spec.direction == record::Direction::kReverse;
    outputs_.out.Print(fmt::format("{}(client -> server {})\n", reverse ? "\n" : "",
                                   reverse ? "reverse: server sends" : "forward: client sends"));
  }
  // -t 0 runs until interrupted: no end to count down to.
  const bool timed = spec.bytes == 0 && spec.blocks == 0 && spec.duration.count() > 0;
  progress_ = std::make_unique<report::ProgressLine>(
      timed ? (spec.duration + spec.omit).count() / 1000.0 : 0.0, report::StdoutIsTerminal());
}

void RunLive::PrintLive(const std::string& text) {
  progress_->Print([this](const std::string& lines) { outputs_.out.Print(lines); }, text);
}

void RunLive::Connected(const record::RunRecord& run) {
  if (outputs_.text) PrintLive(report::RenderConnectedLines(run, outputs_.out.verbose()));
}

// Live terminal lines: the column header before the first interval, then each interval with
// this host's compact view and, from a nicbench server, the server's (live samples).
void RunLive::Interval(const record::RunRecord& run, const record::IntervalRecord& interval,
                       const record::HostInterval* local, const record::HostInterval* remote) {
  if (outputs_.json) return;
  if (!outputs_.text) {
    if (!stream_started_) Emit(outputs_.output, report::StreamStartEvent(run));
    stream_started_ = true;
    Emit(outputs_.output, report::StreamIntervalEvent(run, interval, local, remote));
    return;
  }
  const std::string header = first_interval_ ? report::RenderIntervalHeader(run) : "";
  first_interval_ = false;
  progress_->Update(interval, run.local.role != record::Role::kServer);
  PrintLive(header + report::RenderIntervalLine(run, interval, local, remote));
}

// A server sample that arrives after its interval was shown gets a line (an event) of its own.
void RunLive::LateRemoteSample(const record::RunRecord&, const record::HostInterval& remote) {
  if (outputs_.json) return;
  if (!outputs_.text) {
    Emit(outputs_.output, report::StreamLateSampleEvent(remote));
    return;
  }
  PrintLive(report::RenderHostLine("remote", remote));
}

namespace {

// The failure in the user's terms; the protocol's account of it with -d, else a pointer to it.
void LogFailure(const TextOutput& out, const engine::ClientOutcome& outcome) {
  const std::string error = outcome.record.error.value_or("test failed");
  if (outcome.detail.empty()) {
    LogError(error);
  } else if (out.debug()) {
    LogError(error);
    LogError("(protocol) " + outcome.detail);
  } else {
    LogError(error + " (-d shows the protocol detail)");
  }
}

}  // namespace

void RunLive::TestEnded(const engine::ClientOutcome& outcome) {
  progress_.reset();  // erased before the summary
  if (outputs_.json) return;
  const record::RunRecord& run = outcome.record;
  if (!outputs_.text) {
    JsonStreamEnd(outputs_.output, run);
    return;
  }
  if (outcome.ok() || run.incomplete) {
    // The run's own findings only: a pair's come after the table that shows them.
    outputs_.out.Print(report::RenderSummary(run));
    if (outputs_.out.verbose()) outputs_.out.Print(report::RenderVerboseSummary(run));
  }
  if (!outcome.ok()) LogFailure(outputs_.out, outcome);
}

void RunLive::PairEnded(const job::DirectionPair& pair) {
  if (outputs_.text) outputs_.out.Print(report::RenderDirections(pair.rows, pair.findings));
}

ExitCode ExitFor(const engine::ClientOutcome& outcome) {
  if (outcome.ok()) return ExitCode::kOk;
  switch (outcome.status.error().kind) {
    case ErrorKind::kInterrupted: return ExitCode::kInterrupted;
    case ErrorKind::kPeerCannot: return ExitCode::kEnvironment;
    default: return ExitCode::kTestFailed;
  }
}

namespace {

// -J: one document for one test; JSON Lines for two directions, forward first, the last with
// the pair's "directions" when both finished.
void WriteJsonOutput(const RunOutputs& outputs, const job::RunJobResult& result,
                     const nlohmann::ordered_json& directions) {
  if (!outputs.paired) {
    report::WriteJson(result.runs.front().record, stdout);
    return;
  }
  std::vector<record::RunRecord> records;
  records.reserve(result.runs.size());
  for (const auto& o : result.runs) records.push_back(o.record);
  std::fputs((directions.is_null() ? report::RenderJsonLines(records)
                                   : report::RenderJsonLines(records, directions))
                 .c_str(),
             stdout);
}

// "nicbench: stored run ID in LOCATION" per stored run, or why one was not stored (kStore,
// unless `code` already says the test failed).
int ReportStored(const job::RunJobResult& result, int code) {
  for (const job::StoredRun& stored : result.stored) {
    std::fprintf(stderr, "nicbench: stored run %lld in %s%s\n", static_cast<long long>(stored.id),
                 stored.where.c_str(),
                 stored.incomplete ? ", marked incomplete (history and compare leave it out "
                                     "unless given --incomplete)"
                                   : "");
  }
  if (!result.store_error) return code;
  LogError("the run was not stored: " + result.store_error->ToString());
  return code == ToInt(ExitCode::kOk) ? ToInt(ExitCode::kStore) : code;
}

}  // namespace

int FinishRun(const RunOutputs& outputs, const job::RunJobResult& result) {
  ExitCode code = ExitCode::kOk;
  std::vector<const record::RunRecord*> finished;
  for (const engine::ClientOutcome& outcome : result.runs) {
    if (code == ExitCode::kOk) code = ExitFor(outcome);
    if (outcome.ok()) finished.push_back(&outcome.record);
  }
  const nlohmann::ordered_json directions =
      result.pair ? report::DirectionsJson(result.pair->rows, result.pair->findings)
                  : nlohmann::ordered_json();
  if (outputs.json) WriteJsonOutput(outputs, result, directions);
  const int written =
      WriteHtmlReport(outputs.output, outputs.html_file, finished, ToInt(code), directions);
  return ReportStored(result, written);
}

}  // namespace nicbench::cli
