#include "stand/change.h"

#include <fmt/format.h>

namespace nicbench::stand {

Shaper ShaperFor(const StandInfo& current, Profile profile) {
  if (!ProfileBitsPerSecond(profile)) return Shaper::kNone;
  if (current.qdiscs.tbf.value_or(true)) return Shaper::kTbf;
  return Shaper::kHtb;
}

ChangePlan BuildChangePlan(const StandInfo& current, const StandSpec& wanted) {
  ChangePlan plan;
  auto add = [&plan](Argv argv, bool may_fail) {
    plan.commands.push_back(std::move(argv));
    plan.may_fail.push_back(may_fail);
  };
  for (Argv& argv : BuildOffloadPlan(wanted)) add(std::move(argv), false);
  if (wanted.mtu == current.spec.mtu && wanted.profile == current.spec.profile &&
      wanted.queue == current.spec.queue)
    return plan;
  const Shaper shaper = ShaperFor(current, wanted.profile);
  for (const VethEnd& end : VethEnds(wanted)) {
    add({"tc", "-n", end.netns, "qdisc", "del", "dev", end.device, "root"}, true);
    add({"ip", "-n", end.netns, "link", "set", "dev", end.device, "mtu",
         std::to_string(wanted.mtu)},
        false);
    for (Argv& argv : ShapeOneEnd(end, wanted, shaper)) add(std::move(argv), false);
  }
  if (!current.switch_netns.empty()) {
    add({"ip", "-n", current.switch_netns, "link", "set", "dev", BridgeDevice(wanted.name), "mtu",
         std::to_string(wanted.mtu)},
        false);
  }
  return plan;
}

Status ApplyChange(CommandRunner& runner, const ChangePlan& plan) {
  for (size_t i = 0; i < plan.commands.size(); ++i) {
    auto output = runner.Run(plan.commands[i]);
    if (!output) {
      return Fail(fmt::format("'{}': {}", JoinArgv(plan.commands[i]), output.error().ToString()));
    }
    if (output->exit_code != 0 && !plan.may_fail[i]) {
      std::string err = output->err;
      while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
      return Fail(fmt::format("'{}' failed (exit {}): {}", JoinArgv(plan.commands[i]),
                              output->exit_code, err));
    }
  }
  return Ok();
}

Status RecordChange(const StandInfo& changed, const std::string& state_dir) {
  if (!changed.from_state || !changed.subnet_index) return Ok();
  StateDir dir(state_dir);
  auto lock = dir.Acquire();
  if (!lock) return tl::unexpected(lock.error());
  StandState state;
  state.spec = changed.spec;
  state.subnet_index = *changed.subnet_index;
  state.shaper = ShaperFor(changed, changed.spec.profile);
  state.qdiscs = changed.qdiscs;
  return dir.Save(state);
}

Result<std::optional<StandInfo>> StandWithAddress(std::string_view address) {
  auto stands = List();
  if (!stands) return tl::unexpected(stands.error());
  for (const StandInfo& info : *stands) {
    for (const HostInfo& host : info.hosts) {
      if (host.address == address) return std::optional<StandInfo>(info);
    }
  }
  return std::optional<StandInfo>();
}

}  // namespace nicbench::stand
