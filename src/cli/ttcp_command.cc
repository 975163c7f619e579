// `nicbench ttcp ...` and the binary invoked as `ttcp`: classic ttcp's command line. Usage
// errors and bad values exit 1 here, not ExitCode::kUsage, because ttcp scripts expect the
// original's status.
#include <cstdio>
#include <string_view>

#include "cli/commands.h"
#include "ttcp/options.h"
#include "ttcp/ttcp.h"

namespace nicbench::cli {

int RunTtcpCommand(int argc, char** argv) {
  auto options = ttcp::ParseTtcpArgs(argc, argv);
  if (!options) {
    const ttcp::ArgError& error = options.error();
    if (!error.message.empty()) std::fprintf(stderr, "%s\n", error.message.c_str());
    if (error.show_usage) std::fputs(ttcp::UsageText(), stderr);
    return ttcp::kExitFailure;
  }
  ttcp::Streams streams;
  streams.stats = options->stats_to_stdout ? stdout : stderr;
  streams.diagnostics = stderr;
  return ttcp::RunTtcp(*options, streams);
}

int RunTtcpSubcommand(int argc, char** argv) {
  // `nicbench ttcp --help` (or -h) prints the usage and succeeds, as every nicbench command
  // does; invoked as `ttcp`, the original's behaviour (unknown option, usage, exit 1) stays.
  if (argc == 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    std::fputs(ttcp::UsageText(), stdout);
    return 0;
  }
  return RunTtcpCommand(argc, argv);
}

}  // namespace nicbench::cli
