#include "net/access_list.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

namespace nicbench::net {
namespace {

constexpr std::array<uint8_t, 12> kMappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};

std::array<uint8_t, 16> MapV4(const in_addr& v4) {
  std::array<uint8_t, 16> out{};
  std::memcpy(out.data(), kMappedPrefix.data(), kMappedPrefix.size());
  std::memcpy(out.data() + 12, &v4, 4);
  return out;
}

bool BitSet(const std::array<uint8_t, 16>& bytes, int bit) {
  return (bytes[bit / 8] >> (7 - bit % 8)) & 1;
}

}  // namespace

Result<AddressPrefix> AddressPrefix::Parse(std::string_view text) {
  const size_t slash = text.find('/');
  const std::string host(text.substr(0, slash));
  AddressPrefix out;
  int max_bits = 128;
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    out.bytes = MapV4(v4);
    max_bits = 32;
  } else if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    std::memcpy(out.bytes.data(), &v6, 16);
  } else {
    return Fail(fmt::format("'{}': not an IPv4 or IPv6 address (a CIDR such as 10.0.0.0/8)", text));
  }
  int bits = max_bits;
  if (slash != std::string_view::npos) {
    std::string_view digits = text.substr(slash + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || bits < 0 ||
        bits > max_bits) {
      return Fail(fmt::format("'{}': the prefix length must be 0..{}", text, max_bits));
    }
  }
  out.bits = bits + (max_bits == 32 ? 96 : 0);
  for (int bit = out.bits; bit < 128; ++bit) {
    if (BitSet(out.bytes, bit)) {
      return Fail(fmt::format("'{}': address bits are set past the /{} prefix", text, bits));
    }
  }
  return out;
}

bool AddressPrefix::Contains(const std::array<uint8_t, 16>& address) const {
  const int whole = bits / 8;
  if (std::memcmp(address.data(), bytes.data(), static_cast<size_t>(whole)) != 0) return false;
  const int rest = bits % 8;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xFF << (8 - rest));
  return (address[whole] & mask) == (bytes[whole] & mask);
}

std::string AddressPrefix::ToString() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (bits >= 96 && std::memcmp(bytes.data(), kMappedPrefix.data(), 12) == 0) {
    inet_ntop(AF_INET, bytes.data() + 12, text, sizeof text);
    return fmt::format("{}/{}", text, bits - 96);
  }
  inet_ntop(AF_INET6, bytes.data(), text, sizeof text);
  return fmt::format("{}/{}", text, bits);
}

bool ToV6Bytes(const sockaddr* addr, std::array<uint8_t, 16>* out) {
  if (addr->sa_family == AF_INET) {
    *out = MapV4(reinterpret_cast<const sockaddr_in*>(addr)->sin_addr);
    return true;
  }
  if (addr->sa_family == AF_INET6) {
    std::memcpy(out->data(), &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, 16);
    return true;
  }
  return false;
}

AddressPrefix SubnetOf(const std::array<uint8_t, 16>& address, int v4_bits, int v6_bits) {
  const bool v4 = std::memcmp(address.data(), kMappedPrefix.data(), kMappedPrefix.size()) == 0;
  AddressPrefix out;
  out.bits = v4 ? 96 + std::clamp(v4_bits, 0, 32) : std::clamp(v6_bits, 0, 128);
  for (int bit = 0; bit < out.bits; ++bit) {
    if (BitSet(address, bit)) out.bytes[bit / 8] |= static_cast<uint8_t>(0x80 >> (bit % 8));
  }
  return out;
}

Status AccessList::Allow(std::string_view cidr) {
  auto prefix = AddressPrefix::Parse(cidr);
  if (!prefix) return tl::unexpected(prefix.error());
  allow_.push_back(*prefix);
  return Ok();
}

Status AccessList::Deny(std::string_view cidr) {
  auto prefix = AddressPrefix::Parse(cidr);
  if (!prefix) return tl::unexpected(prefix.error());
  deny_.push_back(*prefix);
  return Ok();
}

bool AccessList::Permits(const std::array<uint8_t, 16>& address) const {
  for (const AddressPrefix& p : deny_) {
    if (p.Contains(address)) return false;
  }
  if (allow_.empty()) return true;
  for (const AddressPrefix& p : allow_) {
    if (p.Contains(address)) return true;
  }
  return false;
}

bool AccessList::Permits(const sockaddr* addr) const {
  std::array<uint8_t, 16> bytes{};
  if (!ToV6Bytes(addr, &bytes)) return false;
  return Permits(bytes);
}

}  // namespace nicbench::net
