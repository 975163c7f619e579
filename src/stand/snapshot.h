// What a stand's links are before `nicbench matrix` changes them in place (change.h), and the
// commands that put them back afterwards. The spec's offload toggles are often kDefault ("as the
// kernel set them"), which says nothing about what to set back, so each veth end's offloads are
// read from the kernel (`ethtool -k`) before the first change. REQUIRES: as change.h.
// Thread safety: plain values; the readers as the runner passed in.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "stand/change.h"

namespace nicbench::stand {

struct StandSnapshot {
  StandInfo info;  // the stand as it came up (its spec's MTU and profile)
  std::vector<std::pair<VethEnd, OffloadFlags>> offloads;  // every veth end, as read
};

// Reads the offloads of every veth end of `stand`; an error names the end that did not read.
Result<StandSnapshot> TakeSnapshot(CommandRunner& runner, const StandInfo& stand);

// The commands that put the stand back as `before`: `ethtool -K` on every end with the tso, gso
// and gro read there, then, with `reshape` (the MTU or the profile were changed, or may have
// been), every end's MTU and qdiscs as before's spec has them. `current` is what the stand is
// now (its spec as last applied).
ChangePlan BuildRestorePlan(const StandInfo& current, const StandSnapshot& before, bool reshape);

// "tso on, gso on, gro on, mtu 1500, profile 1000baseT": what the snapshot says the stand is
// ("offloads differ between ends" instead of the three when they do).
std::string DescribeSnapshot(const StandSnapshot& snapshot);
// "tso off, gso default, gro default, mtu 1500, profile 1000baseT": a spec, as a matrix left it.
std::string DescribeSpec(const StandSpec& spec);

}  // namespace nicbench::stand
