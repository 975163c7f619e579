// `nicbench collect --script` prints the capture script for a far end that runs no nicbench
// (src/cli/collect.sh, compiled in); `nicbench collect -o DIR [-i IF] [-s SECONDS]` makes the
// same capture on this Linux host: `inspect --capture`'s tree at the first sample (with the
// NICs' ethtool and tc facts, read with the ioctls and rtnetlink, written in those tools' text
// layout), and the interface's tree again under DIR/later after SECONDS. `run HOST --remote-facts
// DIR` and `inspect --root DIR` read either capture (probes/far_capture.h).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "base/log.h"
#include "cli/collect_script.h"
#include "cli/commands.h"
#include "cli/default_route.h"
#include "cli/option_tables_tools.h"
#include "cli/parse_args.h"
#include "probes/capture.h"
#include "probes/collect_facts.h"
#include "probes/far_capture.h"
#include "probes/file_source.h"

namespace nicbench::cli {
namespace {

bool WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

int Collect(const CollectPlan& plan) {
  probes::DirFileSource live("/");
  const std::string iface = plan.iface.empty() ? DefaultRouteInterface(live) : plan.iface;
  if (iface.empty()) {
    LogError("collect: no default route to name the interface; give one with -i IF");
    return ToInt(ExitCode::kUsage);
  }
  auto nic = probes::CollectNicFacts(iface, live);
  if (!nic) {
    LogError("collect: " + nic.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  if (auto status = probes::CaptureTree(plan.out, {}); !status) {
    LogError("collect: " + status.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(plan.seconds));
  const std::string later = plan.out + "/later";
  if (auto status = probes::CaptureTree(later, {iface}); !status) {
    LogError("collect: " + status.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start)
          .count();
  WriteText(plan.out + "/" + probes::kCaptureMarker, "nicbench-capture 1\nos Linux\ninterface " +
                                                         iface + "\nseconds " +
                                                         std::to_string(seconds) + "\n");
  std::fprintf(stderr,
               "nicbench: wrote %s (interface %s); read it with: nicbench inspect --root %s\n",
               plan.out.c_str(), iface.c_str(), plan.out.c_str());
  return ToInt(ExitCode::kOk);
}

}  // namespace

int RunCollectCommand(int argc, char** argv) {
  CLI::App app{
      "nicbench collect: a capture of a host's NIC facts and two samples, for a far end that "
      "runs no nicbench (docs/diagnosis.md, \"The far end without nicbench\")",
      "collect"};
  CollectArgs args;
  AddRows(app, args, CollectRows());
  if (auto code = ParseArgs(
          app, argc, argv, [](const std::string& m) { std::fprintf(stderr, "%s\n", m.c_str()); })) {
    return *code;
  }
  CollectPlan plan;
  if (auto s = ApplyRows(args, CollectRows(), plan); !s) {
    LogError("collect: " + s.error().message);
    return ToInt(ExitCode::kUsage);
  }
  if (args.script) {
    const std::string_view text = CollectScript();
    std::fwrite(text.data(), 1, text.size(), stdout);
    return ToInt(ExitCode::kOk);
  }
  if (args.out.empty()) {
    LogError("collect: give --script (print the capture script) or -o DIR (capture this host)");
    return ToInt(ExitCode::kUsage);
  }
  return Collect(plan);
}

}  // namespace nicbench::cli
