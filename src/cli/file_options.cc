#include "cli/file_options.h"

#include <sys/stat.h>

#include "cli/option_tables.h"

namespace nicbench::cli {

void AddFileOptions(CLI::App& app, FileArgs& args) { AddRows(app, args, FileRows()); }

std::optional<FileArgsProblem> ApplyRunFileArgs(const FileArgs& args, const record::TestSpec& spec,
                                                engine::FileOptions* out) {
  if (args.file.empty()) {
    if (args.direct) return FileArgsProblem{ExitCode::kUsage, "--direct needs -F FILE"};
    return std::nullopt;
  }
  out->path = args.file;
  out->direct = args.direct;
  if (auto refused = engine::RefuseForFile(*out, spec)) {
    return FileArgsProblem{ExitCode::kUsage, *refused};
  }
  const bool writes = spec.direction == record::Direction::kReverse;
  if (writes && spec.skip_rx_copy) {
    return FileArgsProblem{ExitCode::kUsage,
                           "--skip-rx-copy discards the data that -F would write"};
  }
  const engine::FileCheck check = engine::CheckFileTarget(*out, writes);
  switch (check.problem) {
    case engine::FileProblem::kNone: return std::nullopt;
    case engine::FileProblem::kUsage: return FileArgsProblem{ExitCode::kUsage, check.message};
    case engine::FileProblem::kEnvironment:
      return FileArgsProblem{ExitCode::kEnvironment, check.message};
  }
  return std::nullopt;
}

uint64_t SendFileBytes(const engine::FileOptions& options, const record::TestSpec& spec) {
  if (!options.enabled() || spec.direction != record::Direction::kForward) return 0;
  struct stat st {};
  if (::stat(options.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  return static_cast<uint64_t>(st.st_size);
}

std::optional<FileArgsProblem> ApplyServeFileArgs(const FileArgs& args, engine::FileOptions* out) {
  if (args.file.empty()) {
    if (args.direct) return FileArgsProblem{ExitCode::kUsage, "--direct needs -F FILE"};
    return std::nullopt;
  }
  out->path = args.file;
  out->direct = args.direct;
  struct stat st {};
  if (::stat(args.file.c_str(), &st) != 0) return std::nullopt;  // each test creates or refuses
  const engine::FileCheck check = engine::CheckFileTarget(*out, /*write=*/false);
  if (check.problem == engine::FileProblem::kUsage) {
    return FileArgsProblem{ExitCode::kUsage, check.message};
  }
  return std::nullopt;
}

}  // namespace nicbench::cli
