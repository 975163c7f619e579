// -F/--file and --direct, shared by `run` and `serve`: the options, and the checks made before
// any test so a bad target is a clear error with its own exit code (docs/files.md).
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "engine/file_io.h"
#include "record/test_spec.h"

namespace nicbench::cli {

struct FileArgs {
  std::string file;
  bool direct = false;
};

void AddFileOptions(CLI::App& app, FileArgs& args);

struct FileArgsProblem {
  ExitCode code = ExitCode::kUsage;
  std::string message;
};

// `run`: checks -F against the test (TCP, not --bidir, not --skip-rx-copy when it receives) and
// the target (a directory is exit 2; a file that cannot be read or created is exit 3), and
// fills `out`. `writes`: the client receives (-R).
std::optional<FileArgsProblem> ApplyRunFileArgs(const FileArgs& args, const record::TestSpec& spec,
                                                engine::FileOptions* out);

// iperf3's end condition for a client that sends a file and gave no -t/-n/-k: the file's
// length (0 = keep the time: nothing to send, a device, or the client receives).
uint64_t SendFileBytes(const engine::FileOptions& options, const record::TestSpec& spec);

// `serve`: the target may be read or written by each test; only what can never work (a
// directory, a FIFO) is refused up front.
std::optional<FileArgsProblem> ApplyServeFileArgs(const FileArgs& args, engine::FileOptions* out);

}  // namespace nicbench::cli
