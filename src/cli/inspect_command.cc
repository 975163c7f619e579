// `nicbench inspect [--iface IF | --peer ADDR] [--json] [--root DIR]`: the host's facts and, for
// one interface, its NIC facts (probes layer), rendered by report/facts_report.h as text or,
// with --json, one document and nothing else on stdout. --root reads a captured tree of /proc
// and /sys (and the ethtool and tc texts --capture keeps) instead of the running machine.
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "base/log.h"
#include "cli/commands.h"
#include "cli/default_route.h"
#include "cli/option_tables_tools.h"
#include "cli/parse_args.h"
#include "net/socket_address.h"
#include "probes/capture.h"
#include "probes/collect_facts.h"
#include "probes/far_capture.h"
#include "probes/file_source.h"
#include "report/facts_report.h"
#include "report/text_report.h"

namespace nicbench::cli {
namespace {

std::vector<std::string> InterfaceNames(probes::FileSource& files) {
  auto names = files.ListDir("/sys/class/net");
  if (!names) return {};
  std::vector<std::string> out;
  for (std::string& name : *names) {
    if (name != "bonding_masters") out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void PrintJsonError(bool json, const std::string& message) {
  if (json) std::fputs(report::RenderFactsJsonError(message).c_str(), stdout);
  LogError(message);
}

int Inspect(const InspectArgs& args);

// --capture DIR: the tree the probes read, written for --root DIR to read back.
int Capture(const InspectArgs& args, const std::string& iface) {
  std::vector<std::string> interfaces;
  if (!iface.empty()) interfaces.push_back(iface);
  if (auto s =
          probes::CaptureTree(args.capture, interfaces, args.root.empty() ? "/" : args.root + "/");
      !s) {
    PrintJsonError(args.json, "inspect: " + s.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  std::fprintf(stderr, "nicbench: captured %s; read it with: nicbench inspect --root %s%s\n",
               iface.empty() ? "every interface" : iface.c_str(), args.capture.c_str(),
               iface.empty() ? "" : (" --iface " + iface).c_str());
  return Inspect(InspectArgs{iface, "", args.capture, "", args.json});
}

// --root DIR of a `nicbench collect` capture: the far end's facts as the capture records them
// (ethtool's texts, or a FreeBSD host's commands) and, in text, its one sample.
int InspectFarCapture(const InspectArgs& args) {
  auto capture = probes::ReadFarCapture(args.root);
  if (!capture) {
    PrintJsonError(args.json, "inspect: " + capture.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  const record::EndpointRecord& end = capture->end;
  if (args.json) {
    std::fputs(report::RenderFactsJson(end.host, nullptr, &end.nic).c_str(), stdout);
    return ToInt(ExitCode::kOk);
  }
  std::string text = report::RenderHostFactsText(end.host) + report::RenderNicFactsText(end.nic);
  for (const record::HostInterval& sample : end.samples) {
    text += report::RenderHostLine("captured", sample) + "\n";
  }
  std::fputs(text.c_str(), stdout);
  return ToInt(ExitCode::kOk);
}

// The interface that routes to --peer, or the exit code after saying why not.
tl::expected<std::string, int> PeerInterface(const InspectArgs& args) {
  if (!args.root.empty()) {
    PrintJsonError(
        args.json,
        "inspect: --peer looks up a route on this machine; it cannot be used with --root");
    return tl::unexpected(ToInt(ExitCode::kUsage));
  }
  // A name is resolved here as `run` resolves its host (the probe takes numeric addresses).
  auto addresses = net::Resolve(args.peer, 0);
  if (!addresses) {
    PrintJsonError(args.json,
                   "inspect: cannot resolve '" + args.peer + "': " + addresses.error().ToString());
    return tl::unexpected(ToInt(ExitCode::kEnvironment));
  }
  auto found = probes::InterfaceForPeer(addresses->front().HostString());
  if (!found) {
    PrintJsonError(args.json, "inspect: " + found.error().ToString());
    return tl::unexpected(ToInt(ExitCode::kEnvironment));
  }
  return *found;
}

int Inspect(const InspectArgs& args) {
  if (!args.root.empty() && args.peer.empty() && args.capture.empty() &&
      probes::IsFarCapture(args.root)) {
    // A Linux capture is also a plain tree: another interface of it is read as one.
    auto capture = probes::ReadFarCapture(args.root);
    if (args.iface.empty() || !capture || capture->interface == args.iface) {
      return InspectFarCapture(args);
    }
  }
  probes::DirFileSource files(args.root.empty() ? "/" : args.root);
  std::string iface = args.iface;
  if (!args.peer.empty()) {
    auto found = PeerInterface(args);
    if (!found) return found.error();
    iface = *found;
  }
  if (!args.capture.empty()) return Capture(args, iface);
  // Named by neither: the NIC most tests leave by, the default route's, with the others' names.
  const bool named = !iface.empty();
  if (!named) iface = DefaultRouteInterface(files);
  record::HostFacts host = probes::CollectHostFacts(files);
  std::vector<std::string> names;
  if (!named) names = InterfaceNames(files);
  if (iface.empty()) {
    std::fputs(
        (args.json ? report::RenderFactsJson(host, &names, nullptr)
                   : report::RenderHostFactsText(host) + report::RenderInterfaceListText(names))
            .c_str(),
        stdout);
    return ToInt(ExitCode::kOk);
  }
  auto nic = probes::CollectNicFacts(iface, files);
  if (!nic) {
    PrintJsonError(args.json, "inspect: " + nic.error().ToString());
    return ToInt(ExitCode::kEnvironment);
  }
  std::string text = args.json
                         ? report::RenderFactsJson(host, named ? nullptr : &names, &*nic)
                         : report::RenderHostFactsText(host) + report::RenderNicFactsText(*nic);
  if (!args.json && !named) text += report::RenderInterfaceListText(names);
  std::fputs(text.c_str(), stdout);
  return ToInt(ExitCode::kOk);
}

}  // namespace

int RunInspectCommand(int argc, char** argv) {
  CLI::App app{"nicbench inspect: host and NIC facts (driver, link, offloads, rings, IRQs, qdisc)",
               "inspect"};
  InspectArgs args;
  AddRows(app, args, InspectRows());
  if (auto code = ParseArgs(
          app, argc, argv, [](const std::string& m) { std::fprintf(stderr, "%s\n", m.c_str()); })) {
    return *code;
  }
  return Inspect(args);
}

}  // namespace nicbench::cli
