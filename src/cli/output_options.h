// The output options of `run` beyond text and -J (docs/report.md): --html FILE (the HTML report
// of the run's records; the file is opened when the command line is checked, so a path that
// cannot be written fails before the test, not after it); --json-stream (iperf3's newline-
// delimited events); --timestamps[=FORMAT] and --forceflush as iperf3's; and the live progress
// line a terminal gets between interval lines.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "record/run_record.h"

namespace nicbench::cli {

struct OutputArgs {
  std::string html;          // --html FILE
  bool json_stream = false;  // --json-stream
  std::string timestamps;    // --timestamps[=FORMAT]: strftime format; empty = none
  bool forceflush = false;   // --forceflush
};

void AddOutputOptions(CLI::App& app, OutputArgs& args);

// Writes --json-stream events to stdout, flushed at once (--forceflush is accepted for iperf3's
// scripts and changes nothing: every line is flushed). Text lines go through TextOutput
// (cli/iperf3_options.h), which adds --timestamps and -T.
void Emit(const OutputArgs& args, const std::string& text);

// --json-stream's end of a test (a start first when no interval came); the start and interval
// events are written as the test runs (cli/run_output.h).
void JsonStreamEnd(const OutputArgs& args, const record::RunRecord& run);

// A file opened for a report, closed when the last copy goes.
using ReportFile = std::shared_ptr<std::FILE>;

// Opens (creates or truncates) `path` for writing; the error names the path and errno's text.
Result<ReportFile> OpenReportFile(const std::string& path);

// Writes `text` and flushes; the error names the path (a full disk shows here).
Status WriteReportFile(const ReportFile& file, const std::string& path, const std::string& text);

// Writes the HTML report of `runs` (in order; nothing when empty) to the file --html opened,
// saying where on stderr. Returns `code` unchanged, or kEnvironment when writing failed and
// `code` was kOk. `directions` (report::DirectionsJson, null for none): the two directions side by
// side, the page's first section.
int WriteHtmlReport(const OutputArgs& args, const ReportFile& file,
                    const std::vector<const record::RunRecord*>& runs, int code,
                    const nlohmann::ordered_json& directions = nullptr);

}  // namespace nicbench::cli
