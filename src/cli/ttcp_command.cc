// `nicbench ttcp ...` and the binary invoked as `ttcp`: classic ttcp's command line. Usage
// errors and bad values exit 1 here, not ExitCode::kUsage, because ttcp scripts expect the
// original's status.
#include <cstdio>
#include <string_view>

#include "cli/commands.h"
#include "cli/default_route.h"
#include "probes/collect_facts.h"
#include "probes/file_source.h"
#include "report/ttcp_note.h"
#include "ttcp/options.h"
#include "ttcp/ttcp.h"

namespace nicbench::cli {
namespace {

// --nic-note: the interface that routes to the transmitter's peer (a receiver's: the default
// route's), its facts, and what the rate says about them; one stderr line after ttcp's own.
void PrintNicNote(const ttcp::TtcpOptions& o, const ttcp::Moved& moved) {
  probes::DirFileSource live("/");
  std::string iface;
  if (!moved.peer.empty()) {
    auto found = probes::InterfaceForPeer(moved.peer);
    if (found) iface = *found;
  }
  if (iface.empty()) iface = DefaultRouteInterface(live);
  const char* prefix = o.transmit ? "ttcp-t" : "ttcp-r";
  auto nic = iface.empty() ? Result<record::NicFacts>(Fail("no route found"))
                           : probes::CollectNicFacts(iface, live);
  if (!nic) {
    std::fprintf(stderr, "%s: note: the interface is unknown (%s)\n", prefix,
                 nic.error().ToString().c_str());
    return;
  }
  const double seconds = moved.real_seconds > 0 ? moved.real_seconds : 0.001;
  std::fputs(report::RenderTtcpNote(prefix, *nic, moved.bytes * 8 / seconds).c_str(), stderr);
}

}  // namespace

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
  ttcp::Moved moved;
  const int status = ttcp::RunTtcp(*options, streams, &moved);
  // After ttcp's lines, which stay byte for byte the original's.
  if (status == ttcp::kExitOk && options->nic_note) PrintNicNote(*options, moved);
  return status;
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
