#include "report/ttcp_note.h"

#include <fmt/format.h>

#include "base/units.h"

namespace nicbench::report {
namespace {

// At or above this share of the link's speed the link is the limit: TCP/IP and Ethernet
// framing leave about 94% of a 1500-byte MTU link's bits for payload.
constexpr double kAtTheLink = 0.90;
// Below this share something else holds the transfer back.
constexpr double kWellBelow = 0.60;

std::string Facts(const record::NicFacts& nic) {
  std::string text = nic.interface + " (";
  text += nic.driver.known() ? nic.driver.value() : std::string("driver unknown");
  text += nic.speed_mbps.known() ? fmt::format(", {} Mb/s", nic.speed_mbps.value())
                                 : std::string(", link speed unknown");
  if (nic.mtu.known()) text += fmt::format(", MTU {}", nic.mtu.value());
  return text + ")";
}

std::string Finding(const record::NicFacts& nic, double bits_per_second) {
  const std::string rate = FormatBitRate(bits_per_second);
  if (nic.loopback) {
    return rate + " over loopback: no NIC, so the figure is this host's CPU and memory";
  }
  if (!nic.speed_mbps.known() || nic.speed_mbps.value() == 0) {
    return rate + "; the link's speed is not reported, so the rate cannot be set against it";
  }
  const double share = bits_per_second / (static_cast<double>(nic.speed_mbps.value()) * 1e6);
  const std::string of = fmt::format("{} is {:.0f}% of the link", rate, share * 100);
  if (share >= kAtTheLink) return of + ": the link is the limit";
  if (share < kWellBelow) {
    return of +
           ": something else holds it back (`nicbench run HOST` against `nicbench serve` "
           "says what)";
  }
  return of + ": near the link, with some headroom left";
}

}  // namespace

std::string RenderTtcpNote(const std::string& prefix, const record::NicFacts& nic,
                           double bits_per_second) {
  return prefix + ": note: " + Facts(nic) + ": " + Finding(nic, bits_per_second) + "\n";
}

}  // namespace nicbench::report
