// How `nicbench run` shows its job (job/run_job.h), the renderers chosen from its options: while
// the job runs, the live lines and the progress line on a terminal (text), --json-stream's
// events, or nothing (-J); after it, -J's document (JSON Lines for two directions), --html's
// page, the stored runs' lines on stderr, and the exit code. Internal to cli; one thread.
#pragma once

#include <memory>

#include "base/exit_code.h"
#include "cli/iperf3_options.h"
#include "cli/output_options.h"
#include "job/run_job.h"
#include "report/progress_line.h"

namespace nicbench::cli {

// The renderers a run's options chose.
struct RunOutputs {
  bool json = false;     // -J: documents at the end, nothing while the job runs
  bool text = true;      // lines for people: neither -J nor --json-stream
  bool paired = false;   // the job runs both directions: a heading before each
  OutputArgs output;     // --json-stream, --html, --timestamps
  ReportFile html_file;  // open when --html was given
  TextOutput out;        // -T, -V, -d
};

// The job's events as they happen, rendered for the chosen output.
class RunLive final : public job::RunJobEvents {
 public:
  explicit RunLive(const RunOutputs& outputs) : outputs_(outputs) {}

  void TestStarting(const engine::ClientConfig& test) override;
  void Connected(const record::RunRecord& run) override;
  void Interval(const record::RunRecord& run, const record::IntervalRecord& interval,
                const record::HostInterval* local, const record::HostInterval* remote) override;
  void LateRemoteSample(const record::RunRecord& run, const record::HostInterval& remote) override;
  void TestEnded(const engine::ClientOutcome& outcome) override;
  void PairEnded(const job::DirectionPair& pair) override;

 private:
  void PrintLive(const std::string& text);

  const RunOutputs& outputs_;
  bool first_interval_ = true;                      // the column header comes before it
  bool stream_started_ = false;                     // --json-stream's start event was written
  std::unique_ptr<report::ProgressLine> progress_;  // during a test, on a terminal
};

// The exit code a test's outcome stands for.
ExitCode ExitFor(const engine::ClientOutcome& outcome);

// After the job: -J's output, the HTML page and the stored runs' lines (a store failure on
// stderr). Returns the exit code: the first failed test's, else the HTML file's failure
// (kEnvironment), else the store's (kStore).
int FinishRun(const RunOutputs& outputs, const job::RunJobResult& result);

}  // namespace nicbench::cli
