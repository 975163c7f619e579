#include "stand/snapshot.h"

#include <fmt/format.h>

namespace nicbench::stand {
namespace {

std::string FlagText(const std::optional<bool>& flag) {
  return !flag ? "unknown" : *flag ? "on" : "off";
}

bool SameOffloads(const OffloadFlags& a, const OffloadFlags& b) {
  return a.tso == b.tso && a.gso == b.gso && a.gro == b.gro;
}

}  // namespace

Result<StandSnapshot> TakeSnapshot(CommandRunner& runner, const StandInfo& stand) {
  StandSnapshot snapshot{stand, {}};
  for (const VethEnd& end : VethEnds(stand.spec)) {
    auto flags = ReadOffloads(runner, end.netns, end.device);
    if (!flags) {
      return Fail(fmt::format("the offloads of {} in {}: {}", end.device, end.netns,
                              flags.error().ToString()));
    }
    snapshot.offloads.emplace_back(end, *flags);
  }
  return snapshot;
}

ChangePlan BuildRestorePlan(const StandInfo& current, const StandSnapshot& before, bool reshape) {
  ChangePlan plan;
  for (const auto& [end, flags] : before.offloads) {
    Argv argv = {"ip", "netns", "exec", end.netns, "ethtool", "-K", end.device};
    for (auto [word, flag] :
         {std::pair{"tso", flags.tso}, std::pair{"gso", flags.gso}, std::pair{"gro", flags.gro}}) {
      if (flag) argv.insert(argv.end(), {word, *flag ? "on" : "off"});
    }
    if (argv.size() == 7) continue;  // ethtool listed none of the three
    plan.commands.push_back(std::move(argv));
    plan.may_fail.push_back(false);
  }
  StandInfo from = current;
  // An MTU no stand has makes BuildChangePlan replace every end's MTU and qdiscs.
  if (reshape) from.spec.mtu = 0;
  StandSpec wanted = before.info.spec;
  wanted.offloads = Offloads{};  // set above, from what the kernel had
  ChangePlan shape = BuildChangePlan(from, wanted);
  plan.commands.insert(plan.commands.end(), shape.commands.begin(), shape.commands.end());
  plan.may_fail.insert(plan.may_fail.end(), shape.may_fail.begin(), shape.may_fail.end());
  return plan;
}

std::string DescribeSnapshot(const StandSnapshot& snapshot) {
  const StandSpec& spec = snapshot.info.spec;
  std::string offloads = "no offloads read";
  if (!snapshot.offloads.empty()) {
    const OffloadFlags& first = snapshot.offloads.front().second;
    offloads = fmt::format("tso {}, gso {}, gro {}", FlagText(first.tso), FlagText(first.gso),
                           FlagText(first.gro));
    for (const auto& [end, flags] : snapshot.offloads) {
      if (!SameOffloads(flags, first)) offloads = "offloads as each end had them";
    }
  }
  return fmt::format("{}, mtu {}, profile {}", offloads, spec.mtu, ProfileName(spec.profile));
}

std::string DescribeSpec(const StandSpec& spec) {
  return fmt::format("tso {}, gso {}, gro {}, mtu {}, profile {}{}", ToggleName(spec.offloads.tso),
                     ToggleName(spec.offloads.gso), ToggleName(spec.offloads.gro), spec.mtu,
                     ProfileName(spec.profile),
                     spec.queue ? fmt::format(", queue {}", QueueKindName(*spec.queue)) : "");
}

}  // namespace nicbench::stand
