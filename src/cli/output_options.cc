#include "cli/output_options.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "base/exit_code.h"
#include "base/log.h"
#include "cli/option_tables.h"
#include "report/html_report.h"
#include "report/json_stream.h"

namespace nicbench::cli {

void AddOutputOptions(CLI::App& app, OutputArgs& args) { AddRows(app, args, OutputRows()); }

void Emit(const OutputArgs&, const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

void JsonStreamEnd(const OutputArgs& args, const record::RunRecord& run) {
  if (run.intervals.empty()) Emit(args, report::StreamStartEvent(run));
  Emit(args, report::StreamEndEvent(run));
}

Result<ReportFile> OpenReportFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return Fail(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  return ReportFile(f, [](std::FILE* p) { std::fclose(p); });
}

Status WriteReportFile(const ReportFile& file, const std::string& path, const std::string& text) {
  errno = 0;
  const bool wrote = std::fwrite(text.data(), 1, text.size(), file.get()) == text.size();
  if (!wrote || std::fflush(file.get()) != 0) {
    return Fail(fmt::format("cannot write {}: {}", path, std::strerror(errno ? errno : EIO)));
  }
  return Ok();
}

int WriteHtmlReport(const OutputArgs& args, const ReportFile& file,
                    const std::vector<const record::RunRecord*>& runs, int code,
                    const nlohmann::ordered_json& directions) {
  if (args.html.empty() || !file || runs.empty()) return code;
  if (auto s = WriteReportFile(file, args.html, report::RenderHtml(runs, directions)); !s) {
    LogError(s.error().message);
    return code == ToInt(ExitCode::kOk) ? ToInt(ExitCode::kEnvironment) : code;
  }
  std::fprintf(stderr, "nicbench: HTML report written to %s\n", args.html.c_str());
  return code;
}

}  // namespace nicbench::cli
