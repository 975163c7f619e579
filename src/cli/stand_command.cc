// `nicbench stand up|down|list|exec`: argv -> StandSpec, then the stand layer does the work.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/option_table.h"
#include "cli/option_tables.h"
#include "stand/stand.h"

namespace nicbench::cli {
namespace {

namespace st = nicbench::stand;

constexpr const char kNeedsRoot[] =
    "nicbench stand: needs root (CAP_NET_ADMIN/CAP_SYS_ADMIN) to create network namespaces\n";

int UsageError(const std::string& message) {
  std::fprintf(stderr, "nicbench stand: %s\nRun `nicbench stand --help` for the options.\n",
               message.c_str());
  return ToInt(ExitCode::kUsage);
}

int EnvironmentError(const std::string& message) {
  std::fprintf(stderr, "nicbench stand: %s\n", message.c_str());
  return ToInt(ExitCode::kEnvironment);
}

// The whole numbers of `up`, parsed here so every message names its option; their ranges are
// stand::Validate's.
Status FillNumbers(const StandArgs& options, st::StandSpec& spec) {
  const Range any_int{0, INT32_MAX};
  auto hosts = ParseInRange("--hosts", options.hosts, any_int);
  if (!hosts) return tl::unexpected(hosts.error());
  spec.hosts = static_cast<int>(*hosts);
  auto mtu = ParseInRange("--mtu", options.mtu, any_int);
  if (!mtu) return tl::unexpected(mtu.error());
  spec.mtu = static_cast<int>(*mtu);
  if (!options.delay_ms.empty()) {
    auto delay = ParseInRange("--delay", options.delay_ms, any_int);
    if (!delay) return tl::unexpected(delay.error());
    spec.delay_ms = static_cast<int>(*delay);
  }
  return Ok();
}

// A stand's name, checked as stand::ValidateName does, in a message that names --name.
Status CheckName(const std::string& name) {
  if (auto valid = st::ValidateName(name); !valid) return Fail("--name: " + valid.error().message);
  return Ok();
}

Result<st::StandSpec> ToSpec(const StandArgs& options) {
  st::StandSpec spec;
  if (auto s = CheckName(options.name); !s) return tl::unexpected(s.error());
  spec.name = options.name;
  if (auto s = FillNumbers(options, spec); !s) return tl::unexpected(s.error());
  if (!options.queue_limit.empty()) {
    auto limit = st::ParseQueueLimit(options.queue_limit);
    if (!limit) return tl::unexpected(limit.error());
    spec.queue_limit = *limit;
  }
  if (!options.queue_limit_on.empty()) {
    auto host = st::ParseHostName(spec.name, options.queue_limit_on);
    if (!host) return Fail("--queue-limit-on: " + host.error().message);
    spec.queue_limit_on = *host;
  }
  if (!options.queue.empty()) {
    auto queue = st::ParseQueueKind(options.queue);
    if (!queue) return tl::unexpected(queue.error());
    spec.queue = *queue;
  }
  if (!options.bottleneck.empty()) {
    auto bottleneck = st::ParseProfile(options.bottleneck);
    if (!bottleneck) return Fail("--bottleneck: " + bottleneck.error().message);
    spec.bottleneck = *bottleneck;
  }
  auto profile = st::ParseProfile(options.profile);
  if (!profile) return Fail("--profile: " + profile.error().message);
  spec.profile = *profile;
  struct Toggle {
    const char* option;
    const std::string& text;
    st::Toggle& target;
  };
  for (const Toggle& t : {Toggle{"--tso", options.tso, spec.offloads.tso},
                          Toggle{"--gso", options.gso, spec.offloads.gso},
                          Toggle{"--gro", options.gro, spec.offloads.gro},
                          Toggle{"--checksum", options.checksum, spec.offloads.checksum}}) {
    if (t.text.empty()) continue;
    auto toggle = st::ParseToggle(t.text);
    if (!toggle) return Fail(fmt::format("{}: {}", t.option, toggle.error().message));
    t.target = *toggle;
  }
  if (auto valid = st::Validate(spec); !valid) return tl::unexpected(valid.error());
  return spec;
}

void PrintUp(const st::StandInfo& info) {
  const st::StandSpec& spec = info.spec;
  if (info.reused)
    std::printf("stand %s was already up with this spec; kept it\n", spec.name.c_str());
  std::string shaping = "no shaping (unlimited)";
  if (info.rate_bits_per_second && info.shaping) {
    shaping = fmt::format("{} on every {}egress ({} burst {} B, limit {} B, +{} B/frame)",
                          FormatBitRate(static_cast<double>(*info.rate_bits_per_second)),
                          spec.bottleneck ? "host " : "veth ", st::ShaperName(info.shaper),
                          info.shaping->burst_bytes, info.shaping->limit_bytes,
                          st::kEthernetOverheadBytes);
  }
  std::printf("stand %s is up: %d hosts, %s = %s, mtu %d\n", spec.name.c_str(), spec.hosts,
              std::string(st::ProfileName(spec.profile)).c_str(), shaping.c_str(), spec.mtu);
  if (spec.delay_ms) std::printf("  delay: %d ms on every veth egress (netem)\n", *spec.delay_ms);
  if (spec.queue) {
    std::printf("  queue: %s on every veth egress%s\n",
                std::string(st::QueueKindName(*spec.queue)).c_str(),
                info.shaper == st::Shaper::kNone ? "" : ", under the shaper");
  }
  if (spec.queue_limit_on && spec.queue_limit) {
    std::printf("  queue: %s on %s's egress only (from it), the others as above\n",
                st::QueueLimitText(*spec.queue_limit).c_str(),
                st::HostName(*spec.queue_limit_on).c_str());
  }
  if (spec.bottleneck) {
    std::printf(
        "  bottleneck: the switch's ports at %s%s\n",
        std::string(st::ProfileName(*spec.bottleneck)).c_str(),
        spec.queue_limit ? (", queue " + st::QueueLimitText(*spec.queue_limit)).c_str() : "");
  }
  for (const auto& host : info.hosts) {
    std::printf("  %-4s namespace %-10s interface %-12s %s/%d\n", host.host.c_str(),
                host.netns.c_str(), host.interface.c_str(), host.address.c_str(),
                st::kPrefixLength);
  }
  if (!info.switch_netns.empty()) {
    std::printf("  switch namespace %s, bridge %s\n", info.switch_netns.c_str(),
                st::BridgeDevice(spec.name).c_str());
  }
  std::printf("  offloads: tso %s, gso %s, gro %s, checksum %s\n",
              std::string(st::ToggleName(spec.offloads.tso)).c_str(),
              std::string(st::ToggleName(spec.offloads.gso)).c_str(),
              std::string(st::ToggleName(spec.offloads.gro)).c_str(),
              std::string(st::ToggleName(spec.offloads.checksum)).c_str());
  std::printf("  qdiscs: %s\n", st::FormatQdiscSupport(info.qdiscs).c_str());
  std::printf("run a command in a host: nicbench stand exec --name %s h1 -- CMD\n",
              spec.name.c_str());
}

// The message of a failed up or down; one refused because processes run inside the stand
// (kBusy) says how to stop them.
std::string StandError(const char* verb, const std::string& name, const Error& error) {
  std::string text = fmt::format("{} {}: {}", verb, name, error.ToString());
  if (error.kind == ErrorKind::kBusy) {
    text += fmt::format(
        "\nstop them, or run `nicbench stand down --name {} --force` to stop them (SIGTERM, then "
        "SIGKILL) and take the stand down",
        name);
  }
  return text;
}

int DoUp(const StandArgs& options) {
  auto spec = ToSpec(options);
  if (!spec) return UsageError(spec.error().message);
  if (!st::HaveNetnsPrivileges()) {
    std::fputs(kNeedsRoot, stderr);
    return ToInt(ExitCode::kEnvironment);
  }
  auto info = st::Up(*spec);
  if (!info) return EnvironmentError(StandError("up", spec->name, info.error()));
  PrintUp(*info);
  return ToInt(ExitCode::kOk);
}

int DoDown(const std::string& name, bool force) {
  if (auto valid = CheckName(name); !valid) return UsageError(valid.error().message);
  if (!st::HaveNetnsPrivileges()) {
    std::fputs(kNeedsRoot, stderr);
    return ToInt(ExitCode::kEnvironment);
  }
  auto down =
      st::Down(name, force ? st::DownMode::kStopProcesses : st::DownMode::kRefuseWhileInUse);
  if (!down) return EnvironmentError(StandError("down", name, down.error()));
  for (const auto& p : *down) {
    std::printf("stopped pid %d in %s (%s)\n", p.pid, p.netns.c_str(), p.command.c_str());
  }
  std::printf("stand %s is down\n", name.c_str());
  return ToInt(ExitCode::kOk);
}

int DoList() {
  auto stands = st::List();
  if (!stands) return EnvironmentError("list: " + stands.error().ToString());
  if (stands->empty()) std::fputs("no stands\n", stderr);
  for (const auto& info : *stands) std::printf("%s\n", st::FormatStandLine(info).c_str());
  return ToInt(ExitCode::kOk);
}

int DoExec(const std::string& name, const std::string& host, const std::vector<std::string>& cmd) {
  if (auto valid = CheckName(name); !valid) return UsageError(valid.error().message);
  if (auto number = st::ParseHostName(name, host); !number) {
    return UsageError(number.error().message);
  }
  if (!st::HaveNetnsPrivileges()) {
    std::fputs(kNeedsRoot, stderr);
    return ToInt(ExitCode::kEnvironment);
  }
  auto code = st::ExecInHost(name, host, cmd);
  if (!code) return EnvironmentError("exec: " + code.error().ToString());
  return *code;
}

}  // namespace

int RunStandCommand(int argc, char** argv) {
  CLI::App app("nicbench stand: hosts as network namespaces joined by shaped veth links",
               "nicbench stand");
  app.require_subcommand(1);
  StandArgs up_args, down_args, exec_args;
  CLI::App* up = app.add_subcommand("up", "build (or rebuild) a stand");
  AddRows(*up, up_args, StandUpRows());
  CLI::App* down = app.add_subcommand("down", "remove a stand and any leftovers of it");
  AddRows(*down, down_args, StandDownRows());
  CLI::App* list = app.add_subcommand("list", "one line per stand");
  CLI::App* exec = app.add_subcommand(
      "exec", "run a command inside a host: exec h1 -- CMD ... (it ends when exec is killed)");
  AddRows(*exec, exec_args, StandExecRows());
  if (auto code = PrintOptionTableIfAsked(app, argc, argv)) return *code;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return ToInt(ExitCode::kOk);
  } catch (const CLI::ParseError& e) {
    return UsageError(e.what());
  }
  if (*up) return DoUp(up_args);
  if (*down) return DoDown(down_args.name, down_args.force);
  if (*list) return DoList();
  if (*exec) return DoExec(exec_args.name, exec_args.host, exec_args.command);
  return UsageError("choose up, down, list or exec");
}

}  // namespace nicbench::cli
