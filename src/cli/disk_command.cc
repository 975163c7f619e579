// `nicbench disk PATH [--size N] [--direct]`: the disk's own sequential write and read rate,
// as `dd` measures it, with -F's definitions (engine/disk_measure.h). docs/files.md.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "base/exit_code.h"
#include "base/log.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/option_tables_tools.h"
#include "cli/parse_args.h"
#include "engine/disk_measure.h"
#include "engine/file_io.h"
#include "record/json.h"
#include "report/text_lines.h"

namespace nicbench::cli {
namespace {

std::string PassLine(const char* what, const record::FileRecord& f) {
  std::string out = fmt::format("  {:<6} {} in {:.3f} s", what,
                                FormatBytes(static_cast<double>(f.bytes)), f.call_seconds);
  if (f.write) out += fmt::format(" (incl. {:.3f} s fdatasync)", f.sync_seconds);
  if (f.call_seconds > 0) out += ": " + report::text::FormatByteRate(f.BytesPerSecond());
  out += "\n";
  if (!f.error.empty()) out += "  error: " + f.error + "\n";
  return out;
}

std::string RenderText(const engine::DiskTestResult& r, const engine::DiskTestSpec& spec) {
  const record::FileRecord& any = r.write ? *r.write : *r.read;
  std::string out =
      fmt::format("nicbench disk: {}{}, {} blocks, {}\n", r.file,
                  any.filesystem.empty() ? "" : " (" + any.filesystem + ")",
                  FormatBytes(static_cast<double>(spec.block_bytes)),
                  any.direct_used ? "O_DIRECT (no page cache)" : "through the page cache");
  if (r.write) out += PassLine("write:", *r.write);
  if (r.read) out += PassLine("read:", *r.read);
  std::vector<std::string> notes = r.notes;
  for (const auto* f : {r.write ? &*r.write : nullptr, r.read ? &*r.read : nullptr}) {
    if (f == nullptr) continue;
    for (const std::string& n : f->notes) {
      if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
    }
  }
  for (const std::string& n : notes) out += "  note: " + n + "\n";
  return out;
}

std::string RenderJson(const engine::DiskTestResult& r, const engine::DiskTestSpec& spec) {
  nlohmann::json j{{"file", r.file},
                   {"size", spec.size},
                   {"block_bytes", spec.block_bytes},
                   {"direct_requested", spec.direct},
                   {"write", r.write ? nlohmann::json(*r.write) : nlohmann::json(nullptr)},
                   {"read", r.read ? nlohmann::json(*r.read) : nlohmann::json(nullptr)},
                   {"notes", r.notes},
                   {"error", r.error}};
  return j.dump(2) + "\n";
}

// The rows' values, then what concerns two of them.
Result<engine::DiskTestSpec> MakeSpec(const DiskArgs& a) {
  engine::DiskTestSpec spec;
  if (auto s = ApplyRows(a, DiskRows(), spec); !s) return tl::unexpected(s.error());
  if (spec.direct && spec.block_bytes % engine::kDirectAlignment != 0) {
    return Fail(fmt::format("-l: --direct needs a multiple of {} bytes", engine::kDirectAlignment));
  }
  return spec;
}

}  // namespace

int RunDiskCommand(int argc, char** argv) {
  CLI::App app{
      "nicbench disk: a file's sequential write and read rate alone, as dd measures it "
      "(bytes over the time in the file calls; the write ends with a fdatasync that "
      "counts)",
      "disk"};
  DiskArgs a;
  AddRows(app, a, DiskRows());
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  auto spec = MakeSpec(a);
  if (!spec) {
    LogError("nicbench disk: " + spec.error().message);
    return ToInt(ExitCode::kUsage);
  }
  auto result = engine::RunDiskTest(*spec);
  if (!result) {
    LogError("nicbench disk: " + result.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  const std::string text = a.json ? RenderJson(*result, *spec) : RenderText(*result, *spec);
  std::fputs(text.c_str(), stdout);
  if (!result->error.empty()) {
    LogError("nicbench disk: " + result->error);
    return ToInt(ExitCode::kTestFailed);
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace nicbench::cli
