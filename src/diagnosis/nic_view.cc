#include "diagnosis/nic_view.h"

#include <fmt/format.h>

namespace nicbench::diagnosis {
namespace {

template <typename Get>
std::optional<int64_t> SumOver(const RunView& view, const End& end, const std::string& key,
                               Get get) {
  std::optional<int64_t> sum;
  for (const auto* s : view.Samples(end)) {
    const auto* counters = get(*s);
    if (counters == nullptr) continue;
    auto it = counters->find(key);
    if (it != counters->end()) sum = sum.value_or(0) + it->second;
  }
  return sum;
}

}  // namespace

bool HardwareNic(const End& end) {
  return !end.record->nic.loopback && !IsSoftwareNic(end.record->nic);
}

std::optional<int64_t> NicCounterSum(const RunView& view, const End& end, const std::string& key) {
  return SumOver(view, end, key,
                 [](const record::HostInterval& s) { return s.nic_counters.get(); });
}

std::optional<int64_t> NetCounterSum(const RunView& view, const End& end, const std::string& key) {
  return SumOver(view, end, key,
                 [](const record::HostInterval& s) { return s.net_counters.get(); });
}

double BitsThrough(const RunView& view, const End& end) {
  double bits = 0;
  for (const Flow& flow : view.flows()) {
    if (flow.sender == &end || flow.receiver == &end) bits += flow.bits_per_second;
  }
  return bits;
}

std::optional<double> PacketsPerSecond(const RunView& view, const End& end, bool* estimated) {
  double seconds = 0;
  for (const auto* s : view.Samples(end)) {
    if (s->nic_counters.known()) seconds += s->end - s->start;
  }
  auto rx = NicCounterSum(view, end, "rx_packets"), tx = NicCounterSum(view, end, "tx_packets");
  *estimated = false;
  if (rx && tx && seconds > 0) return static_cast<double>(*rx + *tx) / seconds;
  const auto* mtu = end.record->nic.mtu.get();
  const double bits = BitsThrough(view, end);
  if (mtu == nullptr || *mtu <= 52 || bits <= 0) return std::nullopt;
  *estimated = true;
  return bits / 8 / (*mtu - 52);  // full data segments only: the ACKs come on top
}

std::string DriverOf(const End& end) {
  const auto* driver = end.record->nic.driver.get();
  return driver ? *driver : std::string();
}

std::string Command(const End& end, const std::string& args) {
  return fmt::format("`{}`", fmt::format(fmt::runtime(args), end.record->nic.interface));
}

}  // namespace nicbench::diagnosis
