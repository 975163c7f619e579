// Reading back what the kernel really has on an interface: its root qdisc with the shaped
// rate (`tc -j qdisc show`), and its offload flags (`ethtool -k`). A stand's shaping then is a
// fact read from the interface, not an echo of the options; other layers (probes) may reuse
// it for any interface. Parsers are pure; readers run commands through a CommandRunner.
// Thread safety: as the runner passed in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "stand/command_runner.h"

namespace nicbench::stand {

struct QdiscInfo {
  std::string kind;                              // "tbf", "htb", "noqueue", "fq_codel", ...
  std::optional<uint64_t> rate_bits_per_second;  // absent for qdiscs without a rate
  std::optional<uint64_t> burst_bytes;           // tbf only
  std::optional<int> overhead_bytes;             // per-packet overhead when configured
};

// The root qdisc from `tc -j qdisc show dev X` output. An interface with no qdisc entry at all
// (a down lo) reads as kind "noqueue".
Result<QdiscInfo> ParseQdiscJson(std::string_view json);
// The rate of class 1:1 from `tc class show dev X` text (iproute2 6.1 prints htb classes as
// text even with -j): "... rate 100Mbit ..." -> 100000000.
Result<uint64_t> ParseHtbClassRate(std::string_view text);
// "100Mbit", "1.5Gbit", "800Kbit", "64bit" -> bits/s (tc prints SI multiples).
Result<uint64_t> ParseTcRate(std::string_view text);

// The root qdisc of `device` inside `netns` ("" = this process's namespace), with the rate
// of an htb's class 1:1 filled in.
Result<QdiscInfo> ReadQdisc(CommandRunner& runner, std::string_view netns, std::string_view device);
Result<QdiscInfo> ReadQdisc(std::string_view netns, std::string_view device);

// Offload flags as ethtool names them; absent when ethtool does not list the feature.
struct OffloadFlags {
  std::optional<bool> tso;          // tcp-segmentation-offload
  std::optional<bool> gso;          // generic-segmentation-offload
  std::optional<bool> gro;          // generic-receive-offload
  std::optional<bool> tx_checksum;  // tx-checksumming
  std::optional<bool> rx_checksum;  // rx-checksumming
};

// `ethtool -k DEV` text -> the top-level flags above.
OffloadFlags ParseEthtoolFeatures(std::string_view text);
Result<OffloadFlags> ReadOffloads(CommandRunner& runner, std::string_view netns,
                                  std::string_view device);

}  // namespace nicbench::stand
