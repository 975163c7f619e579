// The SIOCETHTOOL ioctls (include/uapi/linux/ethtool.h). Every GET used here needs no
// privilege on current kernels; a driver without the operation answers EOPNOTSUPP, which
// becomes kNotSupported.
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "probes/file_source.h"
#include "probes/nic_internal.h"

namespace nicbench::probes::internal {
namespace {

using record::Measured;
using record::Missing;

class EthtoolSocket {
 public:
  EthtoolSocket() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) open_errno_ = errno;
  }
  ~EthtoolSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  EthtoolSocket(const EthtoolSocket&) = delete;
  EthtoolSocket& operator=(const EthtoolSocket&) = delete;

  // One ioctl; `data` starts with the ethtool command word.
  Status Call(const std::string& iface, void* data, const char* what) {
    if (fd_ < 0) return Fail(std::string("socket for ") + what, open_errno_);
    struct ifreq request {};
    std::strncpy(request.ifr_name, iface.c_str(), IFNAMSIZ - 1);
    request.ifr_data = static_cast<char*>(data);
    if (::ioctl(fd_, SIOCETHTOOL, &request) < 0) return FailErrno(what);
    return Ok();
  }

 private:
  int fd_;
  int open_errno_ = 0;
};

template <typename T>
Measured<T> Unknown(const Error& error) {
  return UnknownFrom<T>(error);
}

void FillDriverInfo(EthtoolSocket& sock, const std::string& iface, record::NicFacts& facts) {
  struct ethtool_drvinfo info {};
  info.cmd = ETHTOOL_GDRVINFO;
  if (auto status = sock.Call(iface, &info, "ETHTOOL_GDRVINFO"); !status) {
    facts.driver = facts.driver_version = facts.firmware_version = facts.bus_info =
        Unknown<std::string>(status.error());
    return;
  }
  auto field = [](const char* text, const char* empty_reason) -> Measured<std::string> {
    if (text[0] == '\0')
      return Measured<std::string>::Unknown(Missing::kNotSupported, empty_reason);
    return std::string(text);
  };
  facts.driver = field(info.driver, kEmptyDriver);
  facts.driver_version = field(info.version, kEmptyDriverVersion);
  facts.firmware_version = field(info.fw_version, kEmptyFirmwareVersion);
  facts.bus_info = field(info.bus_info, kEmptyBusInfo);
}

void FillLinkFromLegacy(EthtoolSocket& sock, const std::string& iface, record::NicFacts& facts) {
  struct ethtool_cmd cmd {};
  cmd.cmd = ETHTOOL_GSET;
  if (auto status = sock.Call(iface, &cmd, "ETHTOOL_GSET"); !status) {
    facts.speed_mbps = Unknown<uint64_t>(status.error());
    facts.duplex = Unknown<std::string>(status.error());
    facts.autoneg = Unknown<bool>(status.error());
    return;
  }
  uint32_t speed = ethtool_cmd_speed(&cmd);
  if (speed == 0 || speed == static_cast<uint32_t>(SPEED_UNKNOWN)) {
    facts.speed_mbps = Measured<uint64_t>::Unknown(Missing::kNotSupported, kSpeedUnknown);
  } else {
    facts.speed_mbps = speed;
  }
  if (cmd.duplex == DUPLEX_FULL)
    facts.duplex = std::string("full");
  else if (cmd.duplex == DUPLEX_HALF)
    facts.duplex = std::string("half");
  else
    facts.duplex = Measured<std::string>::Unknown(Missing::kNotSupported, kDuplexUnknown);
  facts.autoneg = cmd.autoneg == AUTONEG_ENABLE;
}

void FillLink(EthtoolSocket& sock, const std::string& iface, record::NicFacts& facts) {
  // The handshake of ETHTOOL_GLINKSETTINGS (4.6+): ask with nwords 0, the kernel answers with
  // the negative word count it wants; ask again with that count.
  // Room for the three link-mode masks after the header; nwords is at most 127 (int8_t).
  std::vector<uint32_t> buffer(sizeof(struct ethtool_link_settings) / 4 + size_t{3} * 128);
  auto* settings = reinterpret_cast<struct ethtool_link_settings*>(buffer.data());
  settings->cmd = ETHTOOL_GLINKSETTINGS;
  auto status = sock.Call(iface, settings, "ETHTOOL_GLINKSETTINGS");
  int8_t nwords = settings->link_mode_masks_nwords;
  if (status && nwords < 0) {
    std::fill(buffer.begin(), buffer.end(), 0u);
    settings->cmd = ETHTOOL_GLINKSETTINGS;
    settings->link_mode_masks_nwords = static_cast<int8_t>(-nwords);
    status = sock.Call(iface, settings, "ETHTOOL_GLINKSETTINGS");
  }
  if (!status || settings->link_mode_masks_nwords <= 0) {
    FillLinkFromLegacy(sock, iface, facts);
    return;
  }
  const struct ethtool_link_settings& s = *settings;
  if (s.speed == 0 || s.speed == static_cast<uint32_t>(SPEED_UNKNOWN)) {
    facts.speed_mbps = Measured<uint64_t>::Unknown(Missing::kNotSupported, kSpeedUnknown);
  } else {
    facts.speed_mbps = s.speed;
  }
  if (s.duplex == DUPLEX_FULL)
    facts.duplex = std::string("full");
  else if (s.duplex == DUPLEX_HALF)
    facts.duplex = std::string("half");
  else
    facts.duplex = Measured<std::string>::Unknown(Missing::kNotSupported, kDuplexUnknown);
  facts.autoneg = s.autoneg == AUTONEG_ENABLE;
}

// Count of a string set (ETH_SS_FEATURES, ETH_SS_STATS).
Result<uint32_t> StringSetSize(EthtoolSocket& sock, const std::string& iface, uint32_t set) {
  // The answer's data[] holds one count per set asked for; we ask for one.
  std::vector<uint64_t> buffer(sizeof(struct ethtool_sset_info) / 8 + 1);
  auto* info = reinterpret_cast<struct ethtool_sset_info*>(buffer.data());
  info->cmd = ETHTOOL_GSSET_INFO;
  info->sset_mask = 1ULL << set;
  if (auto status = sock.Call(iface, info, "ETHTOOL_GSSET_INFO"); !status) {
    return tl::unexpected(status.error());
  }
  if ((info->sset_mask & (1ULL << set)) == 0) return Fail("string set not offered", EOPNOTSUPP);
  return info->data[0];
}

Result<std::vector<std::string>> Strings(EthtoolSocket& sock, const std::string& iface,
                                         uint32_t set) {
  auto count = StringSetSize(sock, iface, set);
  if (!count) return tl::unexpected(count.error());
  std::vector<uint8_t> buffer(sizeof(struct ethtool_gstrings) + size_t{*count} * ETH_GSTRING_LEN);
  auto* request = reinterpret_cast<struct ethtool_gstrings*>(buffer.data());
  request->cmd = ETHTOOL_GSTRINGS;
  request->string_set = set;
  request->len = *count;
  if (auto status = sock.Call(iface, request, "ETHTOOL_GSTRINGS"); !status) {
    return tl::unexpected(status.error());
  }
  std::vector<std::string> names;
  names.reserve(request->len);
  for (uint32_t i = 0; i < request->len && i < *count; ++i) {
    const char* text = reinterpret_cast<const char*>(request->data) + size_t{i} * ETH_GSTRING_LEN;
    names.emplace_back(text, strnlen(text, ETH_GSTRING_LEN));
  }
  return names;
}

void FillFeatures(EthtoolSocket& sock, const std::string& iface, record::NicFacts& facts) {
  auto names = Strings(sock, iface, ETH_SS_FEATURES);
  if (!names) {
    facts.offloads = Unknown<std::vector<record::OffloadState>>(names.error());
    return;
  }
  uint32_t blocks = static_cast<uint32_t>((names->size() + 31) / 32);
  std::vector<uint8_t> buffer(sizeof(struct ethtool_gfeatures) +
                              size_t{blocks} * sizeof(struct ethtool_get_features_block));
  auto* request = reinterpret_cast<struct ethtool_gfeatures*>(buffer.data());
  request->cmd = ETHTOOL_GFEATURES;
  request->size = blocks;
  if (auto status = sock.Call(iface, request, "ETHTOOL_GFEATURES"); !status) {
    facts.offloads = Unknown<std::vector<record::OffloadState>>(status.error());
    return;
  }
  std::vector<KernelFeature> features;
  for (size_t i = 0; i < names->size(); ++i) {
    const auto& block = request->features[i / 32];
    uint32_t bit = 1u << (i % 32);
    // ethtool's "[fixed]": not in hw_features, or marked never changeable.
    bool changeable = (block.available & bit) != 0 && (block.never_changed & bit) == 0;
    features.push_back({(*names)[i], (block.active & bit) != 0, changeable});
  }
  facts.offloads = EthtoolOffloadNames(features);
}

void FillRingsCoalesceChannels(EthtoolSocket& sock, const std::string& iface,
                               record::NicFacts& facts) {
  struct ethtool_ringparam ring {};
  ring.cmd = ETHTOOL_GRINGPARAM;
  if (auto status = sock.Call(iface, &ring, "ETHTOOL_GRINGPARAM"); status) {
    facts.rings = record::RingSizes{ring.rx_pending, ring.tx_pending, ring.rx_max_pending,
                                    ring.tx_max_pending};
  } else {
    facts.rings = Unknown<record::RingSizes>(status.error());
  }
  struct ethtool_coalesce coalesce {};
  coalesce.cmd = ETHTOOL_GCOALESCE;
  if (auto status = sock.Call(iface, &coalesce, "ETHTOOL_GCOALESCE"); status) {
    record::Coalescing c;
    c.rx_usecs = coalesce.rx_coalesce_usecs;
    c.rx_frames = coalesce.rx_max_coalesced_frames;
    c.tx_usecs = coalesce.tx_coalesce_usecs;
    c.tx_frames = coalesce.tx_max_coalesced_frames;
    c.adaptive_rx = coalesce.use_adaptive_rx_coalesce != 0;
    c.adaptive_tx = coalesce.use_adaptive_tx_coalesce != 0;
    facts.coalescing = c;
  } else {
    facts.coalescing = Unknown<record::Coalescing>(status.error());
  }
  struct ethtool_pauseparam pause {};
  pause.cmd = ETHTOOL_GPAUSEPARAM;
  if (auto status = sock.Call(iface, &pause, "ETHTOOL_GPAUSEPARAM"); status) {
    facts.pause =
        record::PauseSettings{pause.autoneg != 0, pause.rx_pause != 0, pause.tx_pause != 0};
  } else {
    facts.pause = Unknown<record::PauseSettings>(status.error());
  }
  struct ethtool_channels channels {};
  channels.cmd = ETHTOOL_GCHANNELS;
  if (auto status = sock.Call(iface, &channels, "ETHTOOL_GCHANNELS"); status) {
    facts.channels = record::ChannelCounts{
        channels.rx_count, channels.tx_count, channels.other_count, channels.combined_count,
        channels.max_rx,   channels.max_tx,   channels.max_other,   channels.max_combined};
  } else {
    facts.channels = Unknown<record::ChannelCounts>(status.error());
  }
}

void FillDriverStats(EthtoolSocket& sock, const std::string& iface, record::NicFacts& facts) {
  using Stats = std::map<std::string, uint64_t>;
  auto names = Strings(sock, iface, ETH_SS_STATS);
  if (!names) {
    facts.driver_stats = Unknown<Stats>(names.error());
    return;
  }
  std::vector<uint64_t> buffer(2 + names->size());  // ethtool_stats header is two u32 words
  auto* request = reinterpret_cast<struct ethtool_stats*>(buffer.data());
  request->cmd = ETHTOOL_GSTATS;
  request->n_stats = static_cast<uint32_t>(names->size());
  if (auto status = sock.Call(iface, request, "ETHTOOL_GSTATS"); !status) {
    facts.driver_stats = Unknown<Stats>(status.error());
    return;
  }
  Stats stats;
  for (size_t i = 0; i < names->size() && i < request->n_stats; ++i) {
    // Drivers repeat some names (per-queue blocks without a prefix); keep the first.
    stats.emplace((*names)[i], request->data[i]);
  }
  facts.driver_stats = std::move(stats);
}

}  // namespace

record::Measured<std::map<std::string, uint64_t>> ReadDriverStats(const std::string& iface) {
  EthtoolSocket sock;
  record::NicFacts facts;
  FillDriverStats(sock, iface, facts);
  return std::move(facts.driver_stats);
}

void FillFromEthtool(const std::string& iface, record::NicFacts& facts) {
  EthtoolSocket sock;
  FillDriverInfo(sock, iface, facts);
  FillLink(sock, iface, facts);
  FillFeatures(sock, iface, facts);
  FillRingsCoalesceChannels(sock, iface, facts);
  FillDriverStats(sock, iface, facts);
}

}  // namespace nicbench::probes::internal
