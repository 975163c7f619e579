// nicbench's test stand: hosts as network namespaces joined by veth pairs (two hosts) or by a
// bridge in a switch namespace (more hosts), every veth end shaped to a link profile, with
// optional offload toggles and MTU. This is the API other layers and tests use; the cli's
// `nicbench stand` is a thin front end over it. See docs/stand.md.
//
// Everything is done by running `ip`, `tc` and `ethtool` (iproute2, ethtool) through a
// CommandRunner, from command lists built by plan.h. REQUIRES: CAP_NET_ADMIN and CAP_SYS_ADMIN
// (namespaces) for Up/Down/Exec; List works without them.
// Thread safety: a StandManager is used by one thread at a time; separate processes are
// serialised by a lock file in the state directory.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "stand/command_runner.h"
#include "stand/netns_processes.h"
#include "stand/plan.h"
#include "stand/readback.h"
#include "stand/spec.h"
#include "stand/state.h"

namespace nicbench::stand {

inline constexpr const char kDefaultStateDir[] = "/run/nicbench";

struct HostInfo {
  std::string host;       // "h1"
  std::string netns;      // "nb-h1"
  std::string interface;  // "nb-h1-e0", the host's end of its link
  std::string address;    // "198.18.0.1", prefix length kPrefixLength; empty when unknown
};

struct StandInfo {
  StandSpec spec;  // for a stand rediscovered without state: name, hosts, guessed profile
  std::vector<HostInfo> hosts;
  std::string switch_netns;  // "nb-sw" with more than two hosts, else empty
  std::optional<int> subnet_index;
  Shaper shaper = Shaper::kNone;
  // The profile's rate, on every veth end's egress; absent for unlimited.
  std::optional<uint64_t> rate_bits_per_second;
  std::optional<Shaping> shaping;  // burst and limit used, when known
  QdiscSupport qdiscs;             // what the kernel had when the stand came up
  bool from_state = true;          // false: rediscovered from namespaces (no state file)
  bool complete = true;            // false: some namespace of the stand is missing
  bool reused = false;             // Up() found an identical stand already up and kept it
};

// "nb  1000baseT 1 Gbit/s tbf  mtu 1500  h1 nb-h1 198.18.0.1/24 ..." : the one-line summary
// `stand list` prints.
std::string FormatStandLine(const StandInfo& info);

// "tbf yes, htb yes, netem missing": what the kernel offered when the stand came up.
std::string FormatQdiscSupport(const QdiscSupport& support);

// What Down does with processes still running inside the stand's namespaces.
enum class DownMode {
  kRefuseWhileInUse,  // fail (ErrorKind::kBusy, naming them), leaving the stand as it is
  kStopProcesses,     // stop them (SIGTERM, then SIGKILL), then take the stand down
};

// How long Down(kStopProcesses) waits for the processes to end after SIGTERM, and again after
// SIGKILL: a server that cleans up on SIGTERM has time to; one stuck in the kernel fails Down.
inline constexpr std::chrono::milliseconds kStopGrace{5000};

// The real process finder, for the constructors' default.
NetnsProcesses& RealNetnsProcesses();

class StandManager {
 public:
  StandManager(CommandRunner& runner, std::string state_dir,
               NetnsProcesses& processes = RealNetnsProcesses())
      : runner_(runner), state_(std::move(state_dir)), processes_(processes) {}

  // Builds the stand. Up of a stand that is already up with the same spec keeps it (reused);
  // with another spec it is taken down and rebuilt, which fails (kBusy) while processes run
  // inside it. On any failure what was built is removed again, and the error names the command
  // and its stderr.
  Result<StandInfo> Up(const StandSpec& spec);
  // Removes the stand's namespaces, stray devices with its prefix in the root namespace (a
  // crashed run's leftovers) and its state file. No error when nothing is there. Processes
  // running inside its namespaces would keep them alive without a name, so `mode` says whether
  // to refuse (ErrorKind::kBusy, the error names each: pid, namespace, command) or to stop
  // them first; returns the processes it stopped.
  Result<std::vector<NetnsProcess>> Down(std::string_view name,
                                         DownMode mode = DownMode::kRefuseWhileInUse);
  // Stands from state files and from namespaces that carry a stand's name, sorted by name.
  Result<std::vector<StandInfo>> List();

 private:
  Result<std::vector<NetnsProcess>> DownLocked(std::string_view name, DownMode mode);
  Result<std::vector<NetnsProcess>> ClearProcesses(const std::vector<std::string>& namespaces,
                                                   DownMode mode);
  Status RunAll(const std::vector<Argv>& plan);
  Result<QdiscSupport> ProbeQdiscs(const std::string& netns);
  // Whether the kernel has qdisc `kind`, tried in a throwaway namespace (ScratchQdiscProbeCommand).
  Result<bool> HasQdisc(std::string_view kind);
  // A spec's --queue kind where the kernel lacks it: an error naming it and what the kernel has.
  Status CheckQueueKind(const StandSpec& spec);
  Result<StandState> Build(const StandSpec& spec, int subnet_index);
  Result<std::vector<std::string>> Namespaces();
  Result<std::vector<std::string>> RootDevices();
  StandInfo Rediscover(std::string_view name, const std::vector<std::string>& namespaces);

  CommandRunner& runner_;
  StateDir state_;
  NetnsProcesses& processes_;
};

// The same with the real ProcessRunner and kDefaultStateDir.
Result<StandInfo> Up(const StandSpec& spec);
Result<std::vector<NetnsProcess>> Down(std::string_view name,
                                       DownMode mode = DownMode::kRefuseWhileInUse);
Result<std::vector<StandInfo>> List();

// The StandInfo a state implies (hosts, addresses, rate, shaping).
StandInfo InfoFromState(const StandState& state);

// Runs `command` inside a host of stand `stand` (`ip netns exec` semantics: this process's
// stdin/stdout/stderr) and returns its exit code. `host` is "h1" or "nb-h1".
Result<int> ExecInHost(std::string_view stand, std::string_view host, const Argv& command);

// True when this process has CAP_NET_ADMIN and CAP_SYS_ADMIN in its effective set.
bool HaveNetnsPrivileges();

// For tests: brings a stand up and always takes it down again when it goes out of scope, even
// when the test fails, stopping what still runs inside (DownMode::kStopProcesses). Move-only.
class ScopedStand {
 public:
  static Result<ScopedStand> Create(const StandSpec& spec,
                                    std::string state_dir = kDefaultStateDir);
  ScopedStand(ScopedStand&& other) noexcept;
  ScopedStand& operator=(ScopedStand&&) = delete;
  ~ScopedStand();

  const StandInfo& info() const { return info_; }
  const HostInfo& host(int number) const;  // 1-based

 private:
  ScopedStand(StandInfo info, std::string state_dir)
      : info_(std::move(info)), state_dir_(std::move(state_dir)) {}
  StandInfo info_;
  std::string state_dir_;
  bool owned_ = true;
};

}  // namespace nicbench::stand
