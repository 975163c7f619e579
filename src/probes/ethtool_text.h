// The text of `ethtool -i/-k/-g/-c/-l IF`, as `nicbench collect --script` captures it on a far
// end that runs no nicbench (the live reader uses the SIOCETHTOOL ioctls instead; the names and
// numbers are the same). Pure functions; formats of the ioctl ethtool and of the netlink one
// (5.x and later: extra lines, "n/a" for what a driver does not report).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "record/facts.h"

namespace nicbench::probes {

// `ethtool -i`: "driver: e1000e", "version: ...", "firmware-version: ...", "bus-info: ...",
// as name -> value (an empty value kept as ""). Error when there is no "driver:" line.
Result<std::map<std::string, std::string>> ParseEthtoolDriverInfo(std::string_view text);

// `ethtool IF` (no option): "Speed: 10000Mb/s", "Duplex: Full", "Auto-negotiation: off".
// "Unknown!" speed or duplex is unknown as the ioctl reader says it ("driver reports speed
// unknown"); a line that is not there leaves its member kAbsent. Error when none is there.
struct EthtoolSettings {
  record::Measured<uint64_t> speed_mbps;
  record::Measured<std::string> duplex;  // "full" / "half"
  record::Measured<bool> autoneg;
};
Result<EthtoolSettings> ParseEthtoolSettings(std::string_view text);

// `ethtool -k`: every "name: on|off [fixed]" line, nested features included. Error when none.
Result<std::vector<record::OffloadState>> ParseEthtoolFeatures(std::string_view text);

// `ethtool -g`: RX and TX of "Pre-set maximums" and "Current hardware settings". Error when
// either current value is missing or "n/a".
Result<record::RingSizes> ParseEthtoolRings(std::string_view text);

// `ethtool -l`: RX, TX, Other, Combined of both sections ("n/a" reads as 0). Error when no
// section has a number.
Result<record::ChannelCounts> ParseEthtoolChannels(std::string_view text);

// `ethtool -c`: rx-usecs, rx-frames, tx-usecs, tx-frames ("n/a" as 0) and "Adaptive RX: on
// TX: off". Error when rx-usecs is absent.
Result<record::Coalescing> ParseEthtoolCoalescing(std::string_view text);

// `ethtool -a`: "Autonegotiate:", "RX:" and "TX:" as on/off (the "RX negotiated:" lines and the
// statistics of `--include-statistics` are read past). Error when "Autonegotiate:" is absent.
Result<record::PauseSettings> ParseEthtoolPause(std::string_view text);

}  // namespace nicbench::probes

namespace nicbench::probes {

// The same texts written from facts read with the ioctls (`nicbench collect -o DIR` on a Linux
// host with nicbench), in ethtool's layout so one reader takes both captures. Each reads back
// with its Parse* above to the same values.
std::string RenderEthtoolDriverInfo(const record::NicFacts& nic);
std::string RenderEthtoolSettings(const record::NicFacts& nic);
std::string RenderEthtoolFeatures(const std::vector<record::OffloadState>& offloads);
std::string RenderEthtoolRings(const record::RingSizes& rings);
std::string RenderEthtoolChannels(const record::ChannelCounts& channels);
std::string RenderEthtoolCoalescing(const record::Coalescing& coalescing);
std::string RenderEthtoolPause(const record::PauseSettings& pause);
std::string RenderEthtoolStatistics(const std::map<std::string, uint64_t>& stats);

}  // namespace nicbench::probes
