// Which client addresses a server serves (serve --allow / --deny, docs/security.md). A rule is
// an IPv4 or IPv6 prefix ("192.0.2.0/24", "2001:db8::/32", or one address: "127.0.0.2", "::1").
// Every address is compared in IPv6 form, an IPv4 one as ::ffff:a.b.c.d, so an IPv4 client seen
// on the dual-stack listener ("::ffff:127.0.0.2") matches an IPv4 rule and an IPv4-mapped rule
// alike. A client is refused when a --deny rule matches it, or when there are --allow rules and
// none matches it.
//
// Thread safety: immutable after it is built; Permits is safe from any thread.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace nicbench::net {

struct AddressPrefix {
  std::array<uint8_t, 16> bytes{};  // IPv6 form; the bits past `bits` are zero
  int bits = 128;

  // "a.b.c.d[/0..32]" or "v6[/0..128]"; bits set beyond the prefix length are an error (a
  // typo such as 10.1.2.3/8 for 10.0.0.0/8 is not silently widened).
  static Result<AddressPrefix> Parse(std::string_view text);
  bool Contains(const std::array<uint8_t, 16>& address) const;
  std::string ToString() const;
};

// The IPv6 form of an AF_INET or AF_INET6 socket address; false for any other family.
bool ToV6Bytes(const sockaddr* addr, std::array<uint8_t, 16>* out);

// The subnet that holds `address` (IPv6 form): its first `v4_bits` (0..32) when it is IPv4
// (::ffff:a.b.c.d), else its first `v6_bits` (0..128), the bits past them cleared. What
// serve --max-tests-per-subnet counts by (192.0.2.77 with 24 -> 192.0.2.0/24).
AddressPrefix SubnetOf(const std::array<uint8_t, 16>& address, int v4_bits, int v6_bits);

class AccessList {
 public:
  Status Allow(std::string_view cidr);
  Status Deny(std::string_view cidr);
  bool empty() const { return allow_.empty() && deny_.empty(); }
  // False for an address of another family than IPv4/IPv6.
  bool Permits(const sockaddr* addr) const;
  bool Permits(const std::array<uint8_t, 16>& address) const;

 private:
  std::vector<AddressPrefix> allow_, deny_;
};

}  // namespace nicbench::net
