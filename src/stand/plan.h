// The pure half of the stand: the exact `ip`, `tc` and `ethtool` command lines that build,
// shape and remove a stand, computed from a StandSpec without touching the kernel (the
// executor in stand.cc runs them). Pure functions; thread-safe.
//
// Topology. Two hosts: one veth pair, NAME-h1-e0 in NAME-h1 to NAME-h2-e0 in NAME-h2. More
// hosts: a bridge NAME-br in the switch namespace NAME-sw, and per host a veth pair NAME-hI-e0
// (in the host) to NAME-sw-pI (a bridge port). Each pair is created with both ends directly
// inside their namespaces, so nothing of ours lives in the root namespace even for a moment.
//
// Shaping. Every veth end gets the profile's rate on its egress, so each direction of each
// link is shaped once: host -> peer on the host end, peer/switch -> host on the other end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stand/command_runner.h"
#include "stand/spec.h"

namespace nicbench::stand {

// The qdisc that carries the rate: tbf when the kernel has it, htb as the fallback, none for
// the unlimited profile.
enum class Shaper { kNone, kTbf, kHtb };
std::string_view ShaperName(Shaper shaper);  // "none" | "tbf" | "htb"

// Ethernet's per-frame cost on the wire beyond what the kernel counts in skb->len: preamble
// and start delimiter 8, FCS 4, inter-frame gap 12 (IEEE 802.3 clause 4). With it the shaped
// goodput of TCP at MTU 1500 is the real link's (100baseTX: 100 * 1448 / 1538 = 94.1 Mbit/s).
inline constexpr int kEthernetOverheadBytes = 24;

struct Shaping {
  uint64_t rate_bits_per_second = 0;
  uint64_t burst_bytes = 0;  // token bucket depth
  uint64_t limit_bytes = 0;  // queue length in front of the bucket
};

// burst = 1 ms of line rate, at least two full frames: the bucket must hold a whole frame or
// the frame is dropped, and 1 ms keeps the dequeue timer (an hrtimer, net/sched/sch_tbf.c)
// from being the limit at 10 Gbit/s. Below 64 KiB (100baseTX) tbf splits GSO packets into
// frames, so the per-frame overhead is charged per frame, as on a real wire.
// limit = 50 ms of line rate, at least two bursts. With veth's near-zero RTT the queue is
// the whole of TCP's pipe: at 10 ms (125 KB at 100 Mbit/s) cubic overran it every few RTTs
// (thousands of retransmits in 8 s, measured with iperf3 on kernel 6.18), at 50 ms a 5 s run
// had none and held 93-95 Mbit/s. At 1 Gbit/s and above the limit exceeds what the default
// tcp_wmem lets one flow queue, so a single flow never tail-drops.
// `limit` (stand up --queue-limit) replaces the 50 ms, still at least two full frames.
Shaping ComputeShaping(uint64_t rate_bits_per_second, int mtu,
                       const std::optional<QueueLimit>& limit = std::nullopt);

// One veth end: the namespace it lives in and its device name.
struct VethEnd {
  std::string netns;
  std::string device;
};
// Every veth end of the stand, host ends first (h1..hN), then the other ends.
std::vector<VethEnd> VethEnds(const StandSpec& spec);

// Namespaces, lo up, veth pairs (and bridge), MTU, addresses, links up.
std::vector<Argv> BuildTopologyPlan(const StandSpec& spec, int subnet_index);
// `ethtool -K` on every veth end for the toggles that are not kDefault (empty when none).
std::vector<Argv> BuildOffloadPlan(const StandSpec& spec);
// The qdiscs of the profile (and netem for a delay, or the --queue kind) on every veth end.
std::vector<Argv> BuildShapingPlan(const StandSpec& spec, Shaper shaper);
// The commands for one veth end; BuildShapingPlan repeats them for every end.
std::vector<Argv> ShapeOneEnd(const VethEnd& end, const StandSpec& spec, Shaper shaper);

// Removal: namespaces first (deleting one destroys the veth ends inside it), then devices left
// in the root namespace.
std::vector<Argv> BuildDownPlan(const std::vector<std::string>& namespaces,
                                const std::vector<std::string>& root_devices);

// Trying a qdisc kind on lo of `netns` (and removing it again) tells whether the kernel has it.
Argv QdiscProbeCommand(std::string_view netns, std::string_view kind);
Argv QdiscProbeCleanupCommand(std::string_view netns);

// The same before anything of a stand exists: `unshare --net tc qdisc add dev lo root ...` tries
// the kind on lo of a namespace that has no name and ends with the command, so a probe leaves
// nothing behind, even when it is killed. (The kernel loads sch_KIND on demand from any
// namespace: qdisc_lookup_ops's request_module, net/sched/sch_api.c.)
Argv ScratchQdiscProbeCommand(std::string_view kind);
// The kinds a refusal lists as what the kernel has, each tried with ScratchQdiscProbeCommand.
inline constexpr std::string_view kListedQdiscKinds[] = {
    "tbf", "htb", "pfifo", "bfifo", "netem", "fq", "fq_codel", "cake", "sfq", "prio"};

}  // namespace nicbench::stand
