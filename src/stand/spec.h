// What a test stand is made of: the StandSpec a user asks for (hosts, link profile, MTU,
// offload toggles), its validation, and the naming and addressing rules that tie every
// namespace, device and address to one stand. Pure values and functions; thread-safe.
//
// Names: a stand called NAME owns the namespaces NAME-h1..NAME-hN (the hosts) and, with more
// than two hosts, NAME-sw (a switch namespace holding a bridge). Every veth end carries the
// same prefix, so `down` can find what a crashed run left behind by name alone. Stand names
// contain no '-', which keeps the prefix of one stand from matching another ("nb" vs "nb2").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace nicbench::stand {

// Link profiles: a line rate shaped on the egress of every veth end. Unlimited adds no qdisc.
enum class Profile { k100BaseTx, k1000BaseT, k10GBaseT, kUnlimited };

Result<Profile> ParseProfile(std::string_view text);  // "100baseTX", case-insensitive
std::string_view ProfileName(Profile profile);
// The line rate of the profile in bits/s; nullopt for unlimited.
std::optional<uint64_t> ProfileBitsPerSecond(Profile profile);

// An offload toggle; kDefault leaves the kernel's choice for the device untouched.
enum class Toggle { kDefault, kOn, kOff };
Result<Toggle> ParseToggle(std::string_view text);  // "on" | "off"
std::string_view ToggleName(Toggle toggle);         // "default" | "on" | "off"

struct Offloads {
  Toggle tso = Toggle::kDefault;
  Toggle gso = Toggle::kDefault;
  Toggle gro = Toggle::kDefault;
  Toggle checksum = Toggle::kDefault;  // tx-checksumming and rx-checksumming together
  bool operator==(const Offloads&) const = default;
};

inline constexpr int kMinHosts = 2;
inline constexpr int kMaxHosts = 32;
inline constexpr int kMinMtu = 68;           // IPv4 minimum (RFC 791)
inline constexpr int kMaxMtu = 65535;        // veth's max_mtu without XDP (drivers/net/veth.c)
inline constexpr size_t kMaxNameLength = 8;  // NAME-sw-p32 must fit IFNAMSIZ-1 = 15 chars

// The shaper's queue (stand up --queue-limit): bytes, or milliseconds at the profile's rate.
// Exactly one is nonzero.
struct QueueLimit {
  uint64_t bytes = 0;
  uint32_t ms = 0;
  bool operator==(const QueueLimit&) const = default;
};
// "50ms" or a byte size ("64K", "1500000"): error for anything else or 0.
Result<QueueLimit> ParseQueueLimit(std::string_view text);
std::string QueueLimitText(const QueueLimit& limit);  // "50ms", "64000 bytes"

// The queue discipline under the shaper (stand up --queue): an AQM instead of tbf's or
// htb's plain byte FIFO. Not every kernel has them (sch_fq_codel, sch_cake).
enum class QueueKind { kFqCodel, kCake };
Result<QueueKind> ParseQueueKind(std::string_view text);  // "fq_codel" | "cake"
std::string_view QueueKindName(QueueKind kind);           // the tc qdisc kind
std::string_view QueueKindModule(QueueKind kind);         // "sch_fq_codel"

struct StandSpec {
  std::string name = "nb";
  int hosts = 2;
  Profile profile = Profile::k1000BaseT;
  int mtu = 1500;
  Offloads offloads;
  // One-way delay added on every egress; needs the netem qdisc, which not every kernel has.
  std::optional<int> delay_ms;
  // The shaper's queue length; unset = 50 ms of the rate (plan.h ComputeShaping). Needs a
  // shaped profile.
  std::optional<QueueLimit> queue_limit;
  // --queue-limit-on hN: queue_limit on that host's own egress only (its veth end: the
  // direction from it), so one direction has the deep (or shallow) FIFO and every other egress
  // the profile's default, as an upload-only buffer in a modem. Needs queue_limit, and no
  // bottleneck (whose queue is the switch's).
  std::optional<int> queue_limit_on;
  // --bottleneck: the switch's ports shaped at this slower profile, the hosts' links at
  // `profile`, so the queue forms in the switch, a hop that forwards, as at a router or a
  // modem (a host's own qdisc holds little of one TCP flow: TCP small queues). queue_limit then
  // applies to the bottleneck only. Needs a switch (hosts > 2).
  std::optional<Profile> bottleneck;
  // --queue: this qdisc as the shaper's child (the root without shaping) on every veth
  // egress, in place of the byte FIFO; its own defaults set its queue, so it excludes
  // queue_limit, and netem's place under the shaper, so it excludes delay_ms.
  std::optional<QueueKind> queue;
  bool operator==(const StandSpec&) const = default;
};

// Every rule a spec must satisfy, with a message that names the option at fault. Used on argv
// by the cli and again by Up() for specs built in code.
Status Validate(const StandSpec& spec);
Status ValidateName(std::string_view name);

// Names of the stand's objects. Hosts are numbered from 1.
std::string HostName(int host);                               // "h1"
std::string HostNamespace(std::string_view stand, int host);  // "nb-h1"
std::string SwitchNamespace(std::string_view stand);          // "nb-sw"
std::string HostDevice(std::string_view stand, int host);     // "nb-h1-e0" (host side)
std::string SwitchPort(std::string_view stand, int host);     // "nb-sw-p1" (switch side)
std::string BridgeDevice(std::string_view stand);             // "nb-br"

// The stand a namespace belongs to ("nb-h2" -> "nb", "nb-sw" -> "nb"), or nullopt when the
// name is not one of ours.
std::optional<std::string> StandOfNamespace(std::string_view netns);
// True when a device or namespace name carries the prefix of `stand` ("nb-..."), i.e. it was
// made for that stand (also a stray veth end left in the root namespace by a crash).
bool CarriesStandPrefix(std::string_view stand, std::string_view object_name);

// "h1" or "nb-h1" -> host number 1 of stand `stand`; an error for anything else.
Result<int> ParseHostName(std::string_view stand, std::string_view text);

// Addressing: each stand gets one /24 of 198.18.0.0/15 (RFC 2544's benchmarking range), picked
// by index 0..511 so two stands can coexist; host i has .i in it.
inline constexpr int kSubnetCount = 512;
inline constexpr int kPrefixLength = 24;
std::string HostAddress(int subnet_index, int host);  // "198.18.0.1"
std::string SubnetText(int subnet_index);             // "198.18.0.0/24"
// The subnet index of an address of ours, or nullopt when it is outside 198.18.0.0/15.
std::optional<int> SubnetIndexOf(std::string_view address);

}  // namespace nicbench::stand
