// Changing a stand that is up, in place, without taking its namespaces down (processes running
// inside, such as a server, keep running): offload toggles, MTU and link profile. Used by
// `nicbench matrix` to apply a variant's stand toggles. The stand's state file keeps the spec it
// came up with until RecordChange writes the new one. REQUIRES: CAP_NET_ADMIN (and
// CAP_SYS_ADMIN for `ip netns exec`).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "stand/command_runner.h"
#include "stand/spec.h"
#include "stand/stand.h"

namespace nicbench::stand {

// The commands that take the stand of `wanted.name` from its current settings to `wanted`:
// `ethtool -K` on every veth end for the offload toggles wanted.offloads sets; when the MTU,
// the profile or the --queue kind change, every veth end's root qdisc is replaced (the first
// command of each end, deleting the old root, may fail when there is none: `optional_first` says
// which may).
struct ChangePlan {
  std::vector<Argv> commands;
  std::vector<bool> may_fail;  // same length: a failure of this command is expected
};
ChangePlan BuildChangePlan(const StandInfo& current, const StandSpec& wanted);

// The shaper a profile needs on this stand's kernel: none for unlimited, tbf when the kernel
// had it when the stand came up (or it was not probed), else htb.
Shaper ShaperFor(const StandInfo& current, Profile profile);

// Runs the plan; the first failing command that may not fail is the error, naming it.
Status ApplyChange(CommandRunner& runner, const ChangePlan& plan);

// Writes `changed` (a stand after ApplyChange, its spec the wanted one) to its state file in
// `state_dir`, under the directory lock, so `stand list` and the runs' stand profile say what the
// stand now is. Nothing to do for a stand rediscovered without a state file.
Status RecordChange(const StandInfo& changed, const std::string& state_dir = kDefaultStateDir);

// The stand one of whose hosts has `address`, from List(); nullopt when none.
Result<std::optional<StandInfo>> StandWithAddress(std::string_view address);

}  // namespace nicbench::stand
