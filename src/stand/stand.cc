#include "stand/stand.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/check.h"
#include "base/log.h"
#include "base/units.h"

namespace nicbench::stand {
namespace {

std::string TrimmedStderr(const CommandOutput& output) {
  std::string err = output.err;
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  return err.empty() ? fmt::format("exit code {}", output.exit_code) : err;
}

// tc's words for a qdisc kind the kernel lacks: "Error: Specified qdisc kind is unknown."
// (netlink extack, kernel >= 4.x) or "Unknown qdisc" (older kernels and tc's own lookup).
bool SaysUnknownQdisc(const std::string& err) {
  return err.find("qdisc kind is unknown") != std::string::npos ||
         err.find("Unknown qdisc") != std::string::npos;
}

Result<std::vector<std::string>> NamesFromJson(const std::string& text, const char* key) {
  std::vector<std::string> names;
  if (text.find_first_not_of(" \n") == std::string::npos) return names;  // nothing listed
  auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_array()) return Fail("ip -j output is not a JSON array");
  for (const auto& entry : doc) {
    if (entry.is_object() && entry.contains(key) && entry[key].is_string()) {
      names.push_back(entry[key].get<std::string>());
    }
  }
  return names;
}

bool NamespaceIsOf(std::string_view stand, const std::string& netns) {
  auto owner = StandOfNamespace(netns);
  return owner && *owner == stand;
}

// A root-namespace device of ours: NAME-hI-e0, NAME-sw-pI or NAME-br.
bool IsStandDevice(std::string_view stand, std::string_view device) {
  if (!CarriesStandPrefix(stand, device)) return false;
  std::string_view rest = device.substr(stand.size() + 1);
  return rest == "br" || rest.starts_with("sw-p") || (rest.size() > 1 && rest[0] == 'h');
}

std::optional<Profile> ProfileOfRate(std::optional<uint64_t> bits_per_second) {
  if (!bits_per_second) return Profile::kUnlimited;
  for (Profile p : {Profile::k100BaseTx, Profile::k1000BaseT, Profile::k10GBaseT}) {
    if (ProfileBitsPerSecond(p) == bits_per_second) return p;
  }
  return std::nullopt;
}

}  // namespace

StandInfo InfoFromState(const StandState& state) {
  const StandSpec& spec = state.spec;
  StandInfo info;
  info.spec = spec;
  info.subnet_index = state.subnet_index;
  info.shaper = state.shaper;
  info.qdiscs = state.qdiscs;
  info.rate_bits_per_second = ProfileBitsPerSecond(spec.profile);
  if (info.rate_bits_per_second)
    // Every egress's: with --queue-limit-on one host's differs (PrintUp says so).
    info.shaping =
        ComputeShaping(*info.rate_bits_per_second, spec.mtu,
                       spec.bottleneck || spec.queue_limit_on ? std::nullopt : spec.queue_limit);
  for (int host = 1; host <= spec.hosts; ++host) {
    info.hosts.push_back({HostName(host), HostNamespace(spec.name, host),
                          HostDevice(spec.name, host), HostAddress(state.subnet_index, host)});
  }
  if (spec.hosts > 2) info.switch_netns = SwitchNamespace(spec.name);
  return info;
}

std::string FormatQdiscSupport(const QdiscSupport& support) {
  auto one = [](const char* kind, const std::optional<bool>& have) {
    return fmt::format("{} {}", kind, !have ? "?" : *have ? "yes" : "missing");
  };
  return fmt::format("{}, {}, {}", one("tbf", support.tbf), one("htb", support.htb),
                     one("netem", support.netem));
}

std::string FormatStandLine(const StandInfo& info) {
  const StandSpec& spec = info.spec;
  std::string rate = info.rate_bits_per_second
                         ? FormatBitRate(static_cast<double>(*info.rate_bits_per_second))
                         : "no shaping";
  std::string line = fmt::format("{}  {} ({}, {})  mtu {}", spec.name, ProfileName(spec.profile),
                                 rate, ShaperName(info.shaper), spec.mtu);
  if (spec.delay_ms) line += fmt::format("  delay {} ms", *spec.delay_ms);
  if (spec.bottleneck)
    line += fmt::format("  bottleneck {} at the switch", ProfileName(*spec.bottleneck));
  if (spec.queue_limit) {
    line += fmt::format("  queue {}{}", QueueLimitText(*spec.queue_limit),
                        spec.queue_limit->ms != 0 ? "" : " bytes");
    if (spec.queue_limit_on) {
      line += fmt::format(" on {}'s egress only", HostName(*spec.queue_limit_on));
    }
  }
  if (spec.queue) line += fmt::format("  queue {}", QueueKindName(*spec.queue));
  line += "  hosts";
  for (const auto& host : info.hosts) {
    line += fmt::format(" {}={}/{}({})", host.host, host.address.empty() ? "?" : host.address,
                        kPrefixLength, host.interface);
  }
  if (!info.switch_netns.empty()) line += fmt::format("  switch {}", info.switch_netns);
  line += fmt::format("  offloads tso={} gso={} gro={} checksum={}", ToggleName(spec.offloads.tso),
                      ToggleName(spec.offloads.gso), ToggleName(spec.offloads.gro),
                      ToggleName(spec.offloads.checksum));
  if (!info.from_state) line += "  [no state file: rediscovered]";
  if (!info.complete) line += "  [incomplete: run `nicbench stand down`]";
  return line;
}

Status StandManager::RunAll(const std::vector<Argv>& plan) {
  for (const auto& argv : plan) {
    auto output = runner_.Run(argv);
    if (!output) {
      return Fail(fmt::format("'{}': {}", JoinArgv(argv), output.error().ToString()));
    }
    if (output->exit_code != 0) {
      return Fail(fmt::format("'{}' failed: {}", JoinArgv(argv), TrimmedStderr(*output)));
    }
  }
  return Ok();
}

Result<QdiscSupport> StandManager::ProbeQdiscs(const std::string& netns) {
  QdiscSupport support;
  for (auto [kind, member] :
       {std::pair{"tbf", &QdiscSupport::tbf}, std::pair{"htb", &QdiscSupport::htb},
        std::pair{"netem", &QdiscSupport::netem}}) {
    Argv probe = QdiscProbeCommand(netns, kind);
    auto output = runner_.Run(probe);
    if (!output) return tl::unexpected(output.error());
    if (output->exit_code == 0) {
      support.*member = true;
      if (auto cleaned = RunAll({QdiscProbeCleanupCommand(netns)}); !cleaned)
        return tl::unexpected(cleaned.error());
    } else if (SaysUnknownQdisc(output->err)) {
      support.*member = false;
    } else {
      return Fail(fmt::format("'{}' failed: {}", JoinArgv(probe), TrimmedStderr(*output)));
    }
  }
  return support;
}

Result<bool> StandManager::HasQdisc(std::string_view kind) {
  Argv probe = ScratchQdiscProbeCommand(kind);
  auto output = runner_.Run(probe);
  if (!output) return tl::unexpected(output.error());
  if (output->exit_code == 0) return true;
  if (SaysUnknownQdisc(output->err)) return false;
  return Fail(fmt::format("'{}' failed: {}", JoinArgv(probe), TrimmedStderr(*output)));
}

Status StandManager::CheckQueueKind(const StandSpec& spec) {
  if (!spec.queue) return Ok();
  const std::string_view kind = QueueKindName(*spec.queue);
  auto has = HasQdisc(kind);
  if (!has) return tl::unexpected(has.error());
  if (*has) return Ok();
  std::string found;
  for (std::string_view other : kListedQdiscKinds) {
    auto has_other = HasQdisc(other);
    if (!has_other) return tl::unexpected(has_other.error());
    if (*has_other) found += fmt::format("{}{}", found.empty() ? "" : ", ", other);
  }
  return Fail(fmt::format(
      "--queue {0}: this kernel has no {0} qdisc ({1} not available); it has: {2}", kind,
      QueueKindModule(*spec.queue), found.empty() ? "none of those tried" : found));
}

Result<StandState> StandManager::Build(const StandSpec& spec, int subnet_index) {
  StandState state{spec, subnet_index, Shaper::kNone, {}};
  if (auto built = RunAll(BuildTopologyPlan(spec, subnet_index)); !built)
    return tl::unexpected(built.error());
  if (auto toggled = RunAll(BuildOffloadPlan(spec)); !toggled)
    return tl::unexpected(toggled.error());
  auto support = ProbeQdiscs(HostNamespace(spec.name, 1));
  if (!support) return tl::unexpected(support.error());
  state.qdiscs = *support;
  if (ProfileBitsPerSecond(spec.profile)) {
    if (*support->tbf) {
      state.shaper = Shaper::kTbf;
    } else if (*support->htb) {
      state.shaper = Shaper::kHtb;
    } else {
      return Fail(
          fmt::format("profile {} needs the tbf or htb qdisc (CONFIG_NET_SCH_TBF or "
                      "CONFIG_NET_SCH_HTB), and this kernel has neither",
                      ProfileName(spec.profile)));
    }
  }
  if (spec.delay_ms && !*support->netem) {
    return Fail(
        "--delay needs the netem qdisc (CONFIG_NET_SCH_NETEM), which this kernel does "
        "not have; profiles with delay, jitter or loss cannot be built here");
  }
  if (auto shaped = RunAll(BuildShapingPlan(spec, state.shaper)); !shaped)
    return tl::unexpected(shaped.error());
  return state;
}

Result<StandInfo> StandManager::Up(const StandSpec& spec) {
  if (auto valid = Validate(spec); !valid) return tl::unexpected(valid.error());
  // Before anything is made or taken down: a stand the kernel cannot build changes nothing.
  if (auto queue = CheckQueueKind(spec); !queue) return tl::unexpected(queue.error());
  auto lock = state_.Acquire();
  if (!lock) return tl::unexpected(lock.error());
  auto existing = state_.Load(spec.name);
  auto namespaces = Namespaces();
  if (!namespaces) return tl::unexpected(namespaces.error());
  if (existing && *existing && (*existing)->spec == spec) {
    StandInfo info = InfoFromState(**existing);
    bool all_there = std::all_of(info.hosts.begin(), info.hosts.end(), [&](const HostInfo& h) {
      return std::count(namespaces->begin(), namespaces->end(), h.netns) == 1;
    });
    if (all_there) {
      info.reused = true;
      return info;
    }
  }
  if (auto down = DownLocked(spec.name, DownMode::kRefuseWhileInUse); !down)
    return tl::unexpected(down.error());
  auto others = state_.LoadAll();
  if (!others) return tl::unexpected(others.error());
  std::vector<int> used;
  for (const auto& other : *others) used.push_back(other.subnet_index);
  auto subnet = ChooseSubnet(used);
  if (!subnet) return tl::unexpected(subnet.error());
  auto state = Build(spec, *subnet);
  if (!state) {
    if (auto cleaned = DownLocked(spec.name, DownMode::kStopProcesses); !cleaned)
      LogWarning(cleaned.error().ToString());
    return tl::unexpected(state.error());
  }
  if (auto saved = state_.Save(*state); !saved) return tl::unexpected(saved.error());
  return InfoFromState(*state);
}

Result<std::vector<std::string>> StandManager::Namespaces() {
  Argv argv = {"ip", "-j", "netns", "list"};
  auto output = runner_.Run(argv);
  if (!output) return tl::unexpected(output.error());
  if (output->exit_code != 0) {
    return Fail(fmt::format("'{}' failed: {}", JoinArgv(argv), TrimmedStderr(*output)));
  }
  return NamesFromJson(output->out, "name");
}

Result<std::vector<std::string>> StandManager::RootDevices() {
  Argv argv = {"ip", "-j", "link", "show"};
  auto output = runner_.Run(argv);
  if (!output) return tl::unexpected(output.error());
  if (output->exit_code != 0) {
    return Fail(fmt::format("'{}' failed: {}", JoinArgv(argv), TrimmedStderr(*output)));
  }
  return NamesFromJson(output->out, "ifname");
}

Result<std::vector<NetnsProcess>> StandManager::ClearProcesses(
    const std::vector<std::string>& namespaces, DownMode mode) {
  auto inside = processes_.Find(namespaces);
  if (!inside || inside->empty()) return inside;
  const char* noun = inside->size() == 1 ? "process runs" : "processes run";
  if (mode == DownMode::kRefuseWhileInUse) {
    return Fail(ErrorKind::kBusy,
                fmt::format("{} {} inside it: {}", inside->size(), noun, FormatProcesses(*inside)));
  }
  auto left = processes_.Stop(*inside, kStopGrace);
  if (!left) return tl::unexpected(left.error());
  if (!left->empty()) {
    return Fail(fmt::format("{} still running {} s after SIGKILL (stuck in the kernel?): {}",
                            left->size(), kStopGrace.count() / 1000, FormatProcesses(*left)));
  }
  return inside;
}

Result<std::vector<NetnsProcess>> StandManager::DownLocked(std::string_view name, DownMode mode) {
  auto namespaces = Namespaces();
  if (!namespaces) return tl::unexpected(namespaces.error());
  std::vector<std::string> ours;
  for (const auto& ns : *namespaces) {
    if (NamespaceIsOf(name, ns)) ours.push_back(ns);
  }
  // Before the names go: a process inside would keep its namespace alive without one.
  auto stopped = ClearProcesses(ours, mode);
  if (!stopped) return stopped;
  if (auto removed = RunAll(BuildDownPlan(ours, {})); !removed)
    return tl::unexpected(removed.error());
  // Listed only now: deleting a namespace destroys its veth ends and their peers with them.
  auto devices = RootDevices();
  if (!devices) return tl::unexpected(devices.error());
  std::vector<std::string> strays;
  for (const auto& dev : *devices) {
    if (IsStandDevice(name, dev)) strays.push_back(dev);
  }
  for (const auto& dev : strays) {
    if (auto removed = RunAll(BuildDownPlan({}, {dev})); !removed) {
      // Deleting one end of a veth pair deletes its peer too, so a later name in the list
      // may already be gone; only a device that is still there is a failure.
      auto now = RootDevices();
      if (!now) return tl::unexpected(now.error());
      if (std::count(now->begin(), now->end(), dev) != 0) return tl::unexpected(removed.error());
    }
  }
  if (auto removed = state_.Remove(name); !removed) return tl::unexpected(removed.error());
  return stopped;
}

Result<std::vector<NetnsProcess>> StandManager::Down(std::string_view name, DownMode mode) {
  if (auto valid = ValidateName(name); !valid) return tl::unexpected(valid.error());
  auto lock = state_.Acquire();
  if (!lock) return tl::unexpected(lock.error());
  return DownLocked(name, mode);
}

StandInfo StandManager::Rediscover(std::string_view name,
                                   const std::vector<std::string>& namespaces) {
  StandInfo info;
  info.from_state = false;
  info.spec.name = std::string(name);
  int hosts = 0;
  while (std::count(namespaces.begin(), namespaces.end(), HostNamespace(name, hosts + 1)) == 1) {
    ++hosts;
  }
  info.spec.hosts = hosts;
  if (std::count(namespaces.begin(), namespaces.end(), SwitchNamespace(name)) == 1) {
    info.switch_netns = SwitchNamespace(name);
  }
  for (int host = 1; host <= hosts; ++host) {
    HostInfo h{HostName(host), HostNamespace(name, host), HostDevice(name, host), ""};
    auto out = runner_.Run({"ip", "-n", h.netns, "-j", "-4", "addr", "show", "dev", h.interface});
    if (out && out->exit_code == 0) {
      auto doc = nlohmann::json::parse(out->out, nullptr, false);
      if (doc.is_array() && !doc.empty() && doc[0].contains("addr_info") &&
          !doc[0]["addr_info"].empty() && doc[0]["addr_info"][0].contains("local")) {
        h.address = doc[0]["addr_info"][0]["local"].get<std::string>();
        info.subnet_index = SubnetIndexOf(h.address);
      }
    }
    info.hosts.push_back(std::move(h));
  }
  if (hosts > 0) {
    if (auto qdisc = ReadQdisc(runner_, info.hosts[0].netns, info.hosts[0].interface)) {
      info.rate_bits_per_second = qdisc->rate_bits_per_second;
      info.shaper = qdisc->kind == "tbf"   ? Shaper::kTbf
                    : qdisc->kind == "htb" ? Shaper::kHtb
                                           : Shaper::kNone;
      info.spec.profile = ProfileOfRate(info.rate_bits_per_second).value_or(Profile::kUnlimited);
    }
  }
  info.complete = hosts >= kMinHosts;
  return info;
}

Result<std::vector<StandInfo>> StandManager::List() {
  auto states = state_.LoadAll();
  if (!states) return tl::unexpected(states.error());
  auto namespaces = Namespaces();
  if (!namespaces) return tl::unexpected(namespaces.error());
  std::map<std::string, StandInfo> stands;
  for (const auto& state : *states) {
    StandInfo info = InfoFromState(state);
    for (const auto& host : info.hosts) {
      if (std::count(namespaces->begin(), namespaces->end(), host.netns) == 0)
        info.complete = false;
    }
    stands.emplace(state.spec.name, std::move(info));
  }
  for (const auto& ns : *namespaces) {
    auto owner = StandOfNamespace(ns);
    if (owner && stands.count(*owner) == 0) stands.emplace(*owner, Rediscover(*owner, *namespaces));
  }
  std::vector<StandInfo> list;
  list.reserve(stands.size());
  for (auto& [name, info] : stands) list.push_back(std::move(info));
  return list;
}

Result<StandInfo> Up(const StandSpec& spec) {
  ProcessRunner runner;
  return StandManager(runner, kDefaultStateDir).Up(spec);
}

Result<std::vector<NetnsProcess>> Down(std::string_view name, DownMode mode) {
  ProcessRunner runner;
  return StandManager(runner, kDefaultStateDir).Down(name, mode);
}

NetnsProcesses& RealNetnsProcesses() {
  // Stateless, so one shared instance is no shared mutable state.
  static ProcNetnsProcesses processes;
  return processes;
}

Result<std::vector<StandInfo>> List() {
  ProcessRunner runner;
  return StandManager(runner, kDefaultStateDir).List();
}

Result<int> ExecInHost(std::string_view stand, std::string_view host, const Argv& command) {
  if (auto valid = ValidateName(stand); !valid) return tl::unexpected(valid.error());
  auto number = ParseHostName(stand, host);
  if (!number) return tl::unexpected(number.error());
  if (command.empty()) return Fail("no command to run");
  std::string netns = HostNamespace(stand, *number);
  // `ip netns add` makes a bind mount here (iproute2 ip/ipnetns.c, NETNS_RUN_DIR).
  if (access(("/run/netns/" + netns).c_str(), F_OK) != 0) {
    return Fail(fmt::format("no host {} (namespace {} does not exist; is stand {} up?)", host,
                            netns, stand));
  }
  Argv argv = {"ip", "netns", "exec", netns};
  argv.insert(argv.end(), command.begin(), command.end());
  return RunInheritingStdio(argv);
}

bool HaveNetnsPrivileges() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &header, data) != 0) return geteuid() == 0;
  auto has = [&](int cap) { return (data[cap / 32].effective >> (cap % 32)) & 1u; };
  return has(CAP_NET_ADMIN) && has(CAP_SYS_ADMIN);
}

Result<ScopedStand> ScopedStand::Create(const StandSpec& spec, std::string state_dir) {
  ProcessRunner runner;
  auto info = StandManager(runner, state_dir).Up(spec);
  if (!info) return tl::unexpected(info.error());
  return ScopedStand(std::move(*info), std::move(state_dir));
}

ScopedStand::ScopedStand(ScopedStand&& other) noexcept
    : info_(std::move(other.info_)), state_dir_(std::move(other.state_dir_)), owned_(other.owned_) {
  other.owned_ = false;
}

ScopedStand::~ScopedStand() {
  if (!owned_) return;
  // A destructor must not throw (it may run while an exception unwinds): running the commands
  // allocates, and a failure to clean up is only worth a warning.
  try {
    ProcessRunner runner;
    auto down = StandManager(runner, state_dir_).Down(info_.spec.name, DownMode::kStopProcesses);
    if (!down) {
      LogWarning(
          fmt::format("stand {}: cleanup failed: {}", info_.spec.name, down.error().ToString()));
    }
  } catch (...) {
    std::fputs("nicbench: stand cleanup failed\n", stderr);
  }
}

const HostInfo& ScopedStand::host(int number) const {
  NB_CHECK(number >= 1 && static_cast<size_t>(number) <= info_.hosts.size());
  return info_.hosts[static_cast<size_t>(number) - 1];
}

}  // namespace nicbench::stand
