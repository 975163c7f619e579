// nicbench entry point: picks the subcommand, or the ttcp front end when the binary is invoked
// under the name `ttcp`.
#include <cstdio>
#include <cstring>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/exit_code.h"
#include "base/version.h"
#include "cli/commands.h"
#include "cli/option_table.h"
#include "net/descriptor_limit.h"
#include "store/store.h"
#include "ttcp/options.h"

namespace {

constexpr const char kUsage[] =
    "nicbench: network throughput test and diagnosis\n"
    "\n"
    "Usage: nicbench COMMAND [options]\n"
    "\n"
    "Commands:\n"
    "  run [HOST]    run a throughput test against HOST (nicbench or iperf3 server);\n"
    "                with no HOST, a full test over loopback in both directions\n"
    "  serve         accept tests from nicbench and iperf3 clients (port 5201)\n"
    "  ttcp          classic ttcp (also available as a `ttcp` symlink)\n"
    "  inspect       show host and NIC facts\n"
    "  collect       capture a host's NIC facts and samples (--script: for a far end\n"
    "                that runs no nicbench, Linux or FreeBSD)\n"
    "  stand         build a test stand of network namespaces\n"
    "  history       list the stored runs, newest first\n"
    "  show ID       print a stored run again (text, --json or --csv)\n"
    "  compare A B   compare two sets of stored runs: medians, U test, what differs\n"
    "  matrix HOST   an experiment: every combination of --vary values, interleaved rounds\n"
    "  report SEL -o FILE.html   stored runs as a self-contained HTML report with charts\n"
    "  disk PATH     a file's sequential write and read rate alone, as dd measures it\n"
    "  monitor PEER  watch a peer and this host, test now and then, raise events\n"
    "  agent         run a fleet's tests for this host (PostgreSQL queue)\n"
    "  mesh          a fleet's meshes: create, list, pause, resume, delete, grid\n"
    "  store migrate create or upgrade the result store's schema\n"
    "\n"
    "Run `nicbench COMMAND --help` for a command's options.\n"
    "Options: -h, --help   this text;  -V, --version   print the version\n";

// The subcommands built on CLI11, in the order of kUsage; `ttcp` parses with getopt.
struct Command {
  const char* name;
  int (*run)(int argc, char** argv);
};
constexpr Command kCommands[] = {
    {"run", nicbench::cli::RunRunCommand},         {"serve", nicbench::cli::RunServeCommand},
    {"inspect", nicbench::cli::RunInspectCommand}, {"collect", nicbench::cli::RunCollectCommand},
    {"stand", nicbench::cli::RunStandCommand},     {"history", nicbench::cli::RunHistoryCommand},
    {"show", nicbench::cli::RunShowCommand},       {"compare", nicbench::cli::RunCompareCommand},
    {"matrix", nicbench::cli::RunMatrixCommand},   {"report", nicbench::cli::RunReportCommand},
    {"disk", nicbench::cli::RunDiskCommand},       {"monitor", nicbench::cli::RunMonitorCommand},
    {"agent", nicbench::cli::RunAgentCommand},     {"mesh", nicbench::cli::RunMeshCommand},
    {"store", nicbench::cli::RunStoreCommand},
};

// `nicbench --help-table`: one JSON line for nicbench itself (its usage text), one per command
// (cli/option_table.h) and one for ttcp (its usage text), which tools/docgen turns into the man
// pages and the bash completion.
int PrintHelpTable() {
  std::printf(
      "%s\n",
      nlohmann::json{{"name", "nicbench"}, {"version", nicbench::kVersion}, {"usage", kUsage}}
          .dump()
          .c_str());
  std::fflush(stdout);
  for (const Command& c : kCommands) {
    char* argv[] = {const_cast<char*>(c.name), const_cast<char*>(nicbench::cli::kHelpTableArg),
                    nullptr};
    if (int code = c.run(2, argv); code != 0) return code;
    std::fflush(stdout);
  }
  std::printf(
      "%s\n",
      nlohmann::json{{"name", "ttcp"}, {"usage", nicbench::ttcp::UsageText()}}.dump().c_str());
  return 0;
}

std::string_view BaseName(const char* path) {
  std::string_view p(path);
  auto slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

}  // namespace

int main(int argc, char** argv) {
  using nicbench::ExitCode;
  using nicbench::ToInt;
  namespace cli = nicbench::cli;

  if (argc > 0 && BaseName(argv[0]) == "ttcp") return cli::RunTtcpCommand(argc, argv);
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return ToInt(ExitCode::kUsage);
  }
  std::string_view command(argv[1]);
  if (command == "-h" || command == "--help" || command == "help") {
    std::fputs(kUsage, stdout);
    return ToInt(ExitCode::kOk);
  }
  if (command == nicbench::cli::kHelpTableArg) return PrintHelpTable();
  if (command == "-V" || command == "--version") {
    std::printf("nicbench %s\nstore: %s\n", nicbench::kVersion,
                nicbench::store::HavePostgres() ? "sqlite, postgresql"
                                                : "sqlite (built without postgresql)");
    return ToInt(ExitCode::kOk);
  }
  int sub_argc = argc - 1;
  char** sub_argv = argv + 1;
  if (command == "ttcp") return cli::RunTtcpSubcommand(sub_argc, sub_argv);
  // A test holds a socket per stream at each end: -P 1000 needs more than the soft limit of
  // 1024 many systems start with. A failure leaves the limit as it was (EMFILE then says so).
  if (command == "serve" || command == "run" || command == "matrix" || command == "monitor") {
    (void)nicbench::net::RaiseDescriptorLimit();
  }
  for (const Command& c : kCommands) {
    if (command == c.name) return c.run(sub_argc, sub_argv);
  }
  std::fprintf(stderr, "nicbench: unknown command '%s'\n\n%s", argv[1], kUsage);
  return ToInt(ExitCode::kUsage);
}
