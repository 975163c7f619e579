// The output options of `run` beyond text and -J: --html FILE (the HTML report of the run's
// records, docs/report.md). The file is opened when the command line is checked, so a path that
// cannot be written fails before the test, not after it.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "record/run_record.h"

namespace nicbench::cli {

struct OutputArgs {
  std::string html;  // --html FILE
};

void AddOutputOptions(CLI::App& app, OutputArgs& args);

// A file opened for a report, closed when the last copy goes.
using ReportFile = std::shared_ptr<std::FILE>;

// Opens (creates or truncates) `path` for writing; the error names the path and errno's text.
Result<ReportFile> OpenReportFile(const std::string& path);

// Writes `text` and flushes; the error names the path (a full disk shows here).
Status WriteReportFile(const ReportFile& file, const std::string& path, const std::string& text);

// Writes the HTML report of `runs` (in order; nothing when empty) to the file --html opened,
// saying where on stderr. Returns `code` unchanged, or kEnvironment when writing failed and
// `code` was kOk.
int WriteHtmlReport(const OutputArgs& args, const ReportFile& file,
                    const std::vector<const record::RunRecord*>& runs, int code);

}  // namespace nicbench::cli
