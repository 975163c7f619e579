#include "stand/spec.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "base/check.h"
#include "base/units.h"

namespace nicbench::stand {
namespace {

struct ProfileEntry {
  Profile profile;
  std::string_view name;
  uint64_t bits_per_second;  // 0 = unlimited
};

constexpr std::array<ProfileEntry, 4> kProfiles = {{
    {Profile::k100BaseTx, "100baseTX", 100'000'000},
    {Profile::k1000BaseT, "1000baseT", 1'000'000'000},
    {Profile::k10GBaseT, "10GBASE-T", 10'000'000'000},
    {Profile::kUnlimited, "unlimited", 0},
}};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// A decimal number of 1..3 digits without sign or leading zero, e.g. the "12" of "h12".
std::optional<int> SmallNumber(std::string_view text) {
  if (text.empty() || text.size() > 3 || text[0] == '0') return std::nullopt;
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool IsNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

}  // namespace

Result<QueueLimit> ParseQueueLimit(std::string_view text) {
  QueueLimit limit;
  if (text.size() > 2 && text.substr(text.size() - 2) == "ms") {
    auto ms = ParseUnsigned(text.substr(0, text.size() - 2));
    if (!ms || *ms == 0 || *ms > 10'000) {
      return Fail(fmt::format("--queue-limit {}: expected 1ms..10000ms or a byte size", text));
    }
    limit.ms = static_cast<uint32_t>(*ms);
    return limit;
  }
  auto bytes = ParseByteSize(text);
  if (!bytes || *bytes == 0 || *bytes > (uint64_t{1} << 32)) {
    return Fail(fmt::format(
        "--queue-limit {}: expected a byte size (1500, 64K, up to 4G) or a time (50ms)", text));
  }
  limit.bytes = *bytes;
  return limit;
}

std::string QueueLimitText(const QueueLimit& limit) {
  return limit.ms != 0 ? fmt::format("{}ms", limit.ms) : std::to_string(limit.bytes);
}

Result<Profile> ParseProfile(std::string_view text) {
  for (const auto& entry : kProfiles) {
    if (EqualsIgnoreCase(text, entry.name)) return entry.profile;
  }
  return Fail(
      fmt::format("unknown profile '{}' (choose 100baseTX, 1000baseT, 10GBASE-T or "
                  "unlimited)",
                  text));
}

std::string_view ProfileName(Profile profile) {
  for (const auto& entry : kProfiles) {
    if (entry.profile == profile) return entry.name;
  }
  NB_CHECK(false);
  return {};
}

std::optional<uint64_t> ProfileBitsPerSecond(Profile profile) {
  for (const auto& entry : kProfiles) {
    if (entry.profile == profile) {
      if (entry.bits_per_second == 0) return std::nullopt;
      return entry.bits_per_second;
    }
  }
  NB_CHECK(false);
  return std::nullopt;
}

Result<QueueKind> ParseQueueKind(std::string_view text) {
  if (text == "fq_codel") return QueueKind::kFqCodel;
  if (text == "cake") return QueueKind::kCake;
  return Fail(fmt::format("--queue: unknown queue '{}' (choose fq_codel or cake)", text));
}

std::string_view QueueKindName(QueueKind kind) {
  switch (kind) {
    case QueueKind::kFqCodel: return "fq_codel";
    case QueueKind::kCake: return "cake";
  }
  NB_CHECK(false);
  return {};
}

std::string_view QueueKindModule(QueueKind kind) {
  switch (kind) {
    case QueueKind::kFqCodel: return "sch_fq_codel";
    case QueueKind::kCake: return "sch_cake";
  }
  NB_CHECK(false);
  return {};
}

Result<Toggle> ParseToggle(std::string_view text) {
  if (EqualsIgnoreCase(text, "on")) return Toggle::kOn;
  if (EqualsIgnoreCase(text, "off")) return Toggle::kOff;
  return Fail(fmt::format("expected 'on' or 'off', got '{}'", text));
}

std::string_view ToggleName(Toggle toggle) {
  switch (toggle) {
    case Toggle::kDefault: return "default";
    case Toggle::kOn: return "on";
    case Toggle::kOff: return "off";
  }
  NB_CHECK(false);
  return {};
}

Status ValidateName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength || !(name[0] >= 'a' && name[0] <= 'z') ||
      !std::all_of(name.begin(), name.end(), IsNameChar)) {
    return Fail(
        fmt::format("bad stand name '{}': use 1 to {} lower-case letters and digits, "
                    "starting with a letter",
                    name, kMaxNameLength));
  }
  return Ok();
}

Status Validate(const StandSpec& spec) {
  if (auto name = ValidateName(spec.name); !name) return name;
  if (spec.hosts < kMinHosts || spec.hosts > kMaxHosts) {
    return Fail(
        fmt::format("--hosts must be between {} and {}, got {}", kMinHosts, kMaxHosts, spec.hosts));
  }
  if (spec.mtu < kMinMtu || spec.mtu > kMaxMtu) {
    return Fail(fmt::format("--mtu must be between {} and {}, got {}", kMinMtu, kMaxMtu, spec.mtu));
  }
  // The kernel drops TSO when tx checksumming goes off (netdev_fix_features in
  // net/core/dev.c), so asking for both would silently yield a stand other than requested.
  if (spec.offloads.checksum == Toggle::kOff && spec.offloads.tso == Toggle::kOn) {
    return Fail("--tso on needs --checksum on: the kernel turns TSO off without tx checksumming");
  }
  if (spec.queue_limit && !ProfileBitsPerSecond(spec.profile)) {
    return Fail("--queue-limit sets the shaper's queue: it needs a shaped --profile");
  }
  if (spec.queue_limit_on) {
    if (!spec.queue_limit) return Fail("--queue-limit-on needs --queue-limit: the queue it places");
    if (spec.bottleneck) {
      return Fail(
          "--queue-limit-on places the queue on a host's egress; with --bottleneck it is "
          "the switch's: give one or the other");
    }
    if (*spec.queue_limit_on < 1 || *spec.queue_limit_on > spec.hosts) {
      return Fail(fmt::format("--queue-limit-on must name a host of the stand, h1..h{}, got h{}",
                              spec.hosts, *spec.queue_limit_on));
    }
  }
  if (spec.queue && spec.queue_limit) {
    return Fail("--queue-limit sets the byte FIFO that --queue replaces: give one or the other");
  }
  if (spec.queue && spec.delay_ms) {
    return Fail("--queue and --delay both hang under the shaper: give one or the other");
  }
  if (spec.bottleneck) {
    const auto host_rate = ProfileBitsPerSecond(spec.profile);
    const auto rate = ProfileBitsPerSecond(*spec.bottleneck);
    if (spec.hosts < 3)
      return Fail("--bottleneck shapes the switch's ports: it needs --hosts 3 or more");
    if (!rate || !host_rate || *rate >= *host_rate) {
      return Fail("--bottleneck must be a shaped profile slower than --profile");
    }
  }
  if (spec.delay_ms && (*spec.delay_ms < 0 || *spec.delay_ms > 10'000)) {
    return Fail(fmt::format("--delay must be between 0 and 10000 ms, got {}", *spec.delay_ms));
  }
  return Ok();
}

std::string HostName(int host) { return fmt::format("h{}", host); }

std::string HostNamespace(std::string_view stand, int host) {
  return fmt::format("{}-h{}", stand, host);
}

std::string SwitchNamespace(std::string_view stand) { return fmt::format("{}-sw", stand); }

std::string HostDevice(std::string_view stand, int host) {
  return fmt::format("{}-h{}-e0", stand, host);
}

std::string SwitchPort(std::string_view stand, int host) {
  return fmt::format("{}-sw-p{}", stand, host);
}

std::string BridgeDevice(std::string_view stand) { return fmt::format("{}-br", stand); }

std::optional<std::string> StandOfNamespace(std::string_view netns) {
  auto dash = netns.rfind('-');
  if (dash == std::string_view::npos) return std::nullopt;
  std::string_view stand = netns.substr(0, dash);
  std::string_view role = netns.substr(dash + 1);
  if (!ValidateName(stand)) return std::nullopt;
  bool host_role = role.size() >= 2 && role[0] == 'h' && SmallNumber(role.substr(1)).has_value();
  if (role != "sw" && !host_role) return std::nullopt;
  return std::string(stand);
}

bool CarriesStandPrefix(std::string_view stand, std::string_view object_name) {
  return object_name.size() > stand.size() + 1 && object_name.substr(0, stand.size()) == stand &&
         object_name[stand.size()] == '-';
}

Result<int> ParseHostName(std::string_view stand, std::string_view text) {
  std::string_view rest = text;
  if (CarriesStandPrefix(stand, rest)) rest.remove_prefix(stand.size() + 1);
  if (rest.size() >= 2 && rest[0] == 'h') {
    if (auto number = SmallNumber(rest.substr(1)); number && *number >= 1) return *number;
  }
  return Fail(fmt::format("unknown host '{}' (expected h1, h2, ... or {}-h1, ...)", text, stand));
}

std::string HostAddress(int subnet_index, int host) {
  NB_CHECK(subnet_index >= 0 && subnet_index < kSubnetCount);
  NB_CHECK(host >= 1 && host <= 254);
  return fmt::format("198.{}.{}.{}", 18 + subnet_index / 256, subnet_index % 256, host);
}

std::string SubnetText(int subnet_index) {
  NB_CHECK(subnet_index >= 0 && subnet_index < kSubnetCount);
  return fmt::format("198.{}.{}.0/{}", 18 + subnet_index / 256, subnet_index % 256, kPrefixLength);
}

std::optional<int> SubnetIndexOf(std::string_view address) {
  int octets[4] = {};
  const char* p = address.data();
  const char* end = address.data() + address.size();
  for (int i = 0; i < 4; ++i) {
    auto [next, ec] = std::from_chars(p, end, octets[i]);
    if (ec != std::errc() || octets[i] < 0 || octets[i] > 255) return std::nullopt;
    p = next;
    if (i < 3) {
      if (p == end || *p != '.') return std::nullopt;
      ++p;
    }
  }
  if (p != end || octets[0] != 198 || (octets[1] != 18 && octets[1] != 19)) return std::nullopt;
  return (octets[1] - 18) * 256 + octets[2];
}

}  // namespace nicbench::stand
