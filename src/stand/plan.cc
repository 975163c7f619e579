#include "stand/plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/check.h"

namespace nicbench::stand {
namespace {

constexpr uint64_t kEthernetHeaderBytes = 14;
// netem's queue is counted in packets; 1000 is its default (net/sched/sch_netem.c).
constexpr uint64_t kMinNetemPackets = 1000;

Argv InNamespace(std::string_view netns, std::initializer_list<std::string> rest) {
  Argv argv = {"ip", "-n", std::string(netns)};
  argv.insert(argv.end(), rest);
  return argv;
}

Argv Tc(std::string_view netns, std::initializer_list<std::string> rest) {
  Argv argv = {"tc", "-n", std::string(netns)};
  argv.insert(argv.end(), rest);
  return argv;
}

void AddNamespace(std::vector<Argv>& plan, const std::string& netns) {
  plan.push_back({"ip", "netns", "add", netns});
  plan.push_back(InNamespace(netns, {"link", "set", "dev", "lo", "up"}));
}

void AddVethPair(std::vector<Argv>& plan, const VethEnd& a, const VethEnd& b, int mtu) {
  plan.push_back({"ip", "link", "add", a.device, "netns", a.netns, "type", "veth", "peer", "name",
                  b.device, "netns", b.netns});
  for (const auto* end : {&a, &b}) {
    plan.push_back(
        InNamespace(end->netns, {"link", "set", "dev", end->device, "mtu", std::to_string(mtu)}));
  }
}

void AddAddressAndUp(std::vector<Argv>& plan, const VethEnd& end, const std::string& address) {
  plan.push_back(InNamespace(
      end.netns, {"addr", "add", fmt::format("{}/{}", address, kPrefixLength), "dev", end.device}));
  plan.push_back(InNamespace(end.netns, {"link", "set", "dev", end.device, "up"}));
}

void AddToggle(Argv& argv, std::string_view feature, Toggle toggle) {
  if (toggle == Toggle::kDefault) return;
  argv.emplace_back(feature);
  argv.emplace_back(ToggleName(toggle));
}

uint64_t NetemLimitPackets(const StandSpec& spec, const Shaping& shaping) {
  uint64_t frame = static_cast<uint64_t>(spec.mtu) + kEthernetHeaderBytes;
  // The delay line holds rate x delay bytes in flight on top of the usual queue.
  uint64_t in_flight =
      shaping.rate_bits_per_second / 8 / 1000 * static_cast<uint64_t>(spec.delay_ms.value_or(0));
  return std::max(kMinNetemPackets, (in_flight + shaping.limit_bytes) / frame + 1);
}

// A qdisc under the shaper's class 1:1 (tbf's single class, or htb's), or the root when there
// is no shaper.
Argv QdiscUnder(const VethEnd& end, Shaper shaper, std::initializer_list<std::string> qdisc) {
  Argv argv = Tc(end.netns, {"qdisc", "add", "dev", end.device});
  if (shaper == Shaper::kNone) {
    argv.insert(argv.end(), {"root", "handle", "1:"});
  } else {
    argv.insert(argv.end(), {"parent", "1:1", "handle", "10:"});
  }
  argv.insert(argv.end(), qdisc);
  return argv;
}

// The root that carries the rate: tbf, or htb with one class 1:1.
void AddShaper(std::vector<Argv>& plan, const VethEnd& end, const StandSpec& spec, Shaper shaper,
               const Shaping& shaping) {
  const std::string& ns = end.netns;
  const std::string& dev = end.device;
  std::string rate_text = fmt::format("{}bit", shaping.rate_bits_per_second);
  std::string burst = std::to_string(shaping.burst_bytes);
  std::string overhead = std::to_string(kEthernetOverheadBytes);
  if (shaper == Shaper::kTbf) {
    plan.push_back(Tc(
        ns, {"qdisc", "add", "dev", dev, "root", "handle", "1:", "tbf", "rate", rate_text, "burst",
             burst, "limit", std::to_string(shaping.limit_bytes), "overhead", overhead}));
    return;
  }
  // htb's quantum must hold a full frame; a single class makes its exact value irrelevant.
  std::string quantum = std::to_string(spec.mtu + kEthernetHeaderBytes + kEthernetOverheadBytes);
  plan.push_back(
      Tc(ns, {"qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1"}));
  plan.push_back(Tc(ns, {"class", "add",    "dev",  dev,       "parent", "1:",       "classid",
                         "1:1",   "htb",    "rate", rate_text, "ceil",   rate_text,  "burst",
                         burst,   "cburst", burst,  "quantum", quantum,  "overhead", overhead}));
}

// "qdisc add dev lo root handle 1: KIND" and what the kind cannot be added without.
void AddProbeWords(Argv& argv, std::string_view kind) {
  argv.insert(argv.end(), {"qdisc", "add", "dev", "lo", "root", "handle", "1:", std::string(kind)});
  if (kind == "tbf") argv.insert(argv.end(), {"rate", "1mbit", "burst", "10000", "limit", "10000"});
  if (kind == "netem") argv.insert(argv.end(), {"delay", "1ms"});
}

}  // namespace

std::string_view ShaperName(Shaper shaper) {
  switch (shaper) {
    case Shaper::kNone: return "none";
    case Shaper::kTbf: return "tbf";
    case Shaper::kHtb: return "htb";
  }
  NB_CHECK(false);
  return {};
}

Shaping ComputeShaping(uint64_t rate_bits_per_second, int mtu,
                       const std::optional<QueueLimit>& limit) {
  NB_CHECK(rate_bits_per_second > 0);
  uint64_t bytes_per_ms = rate_bits_per_second / 8 / 1000;
  uint64_t frame = static_cast<uint64_t>(mtu) + kEthernetHeaderBytes + kEthernetOverheadBytes;
  Shaping shaping;
  shaping.rate_bits_per_second = rate_bits_per_second;
  shaping.burst_bytes = std::max(bytes_per_ms, 2 * frame);
  shaping.limit_bytes = std::max(50 * bytes_per_ms, 2 * shaping.burst_bytes);
  if (limit) {
    const uint64_t asked = limit->bytes != 0 ? limit->bytes : bytes_per_ms * limit->ms;
    shaping.limit_bytes = std::max(asked, 2 * frame);
  }
  return shaping;
}

std::vector<VethEnd> VethEnds(const StandSpec& spec) {
  std::vector<VethEnd> ends;
  for (int host = 1; host <= spec.hosts; ++host) {
    ends.push_back({HostNamespace(spec.name, host), HostDevice(spec.name, host)});
  }
  if (spec.hosts > 2) {
    for (int host = 1; host <= spec.hosts; ++host) {
      ends.push_back({SwitchNamespace(spec.name), SwitchPort(spec.name, host)});
    }
  }
  return ends;
}

std::vector<Argv> BuildTopologyPlan(const StandSpec& spec, int subnet_index) {
  NB_CHECK(Validate(spec).has_value());
  std::vector<Argv> plan;
  std::string mtu = std::to_string(spec.mtu);
  for (int host = 1; host <= spec.hosts; ++host) AddNamespace(plan, HostNamespace(spec.name, host));
  auto host_end = [&](int host) {
    return VethEnd{HostNamespace(spec.name, host), HostDevice(spec.name, host)};
  };
  if (spec.hosts == 2) {
    AddVethPair(plan, host_end(1), host_end(2), spec.mtu);
  } else {
    std::string sw = SwitchNamespace(spec.name);
    std::string bridge = BridgeDevice(spec.name);
    AddNamespace(plan, sw);
    plan.push_back(InNamespace(sw, {"link", "add", "name", bridge, "type", "bridge"}));
    plan.push_back(InNamespace(sw, {"link", "set", "dev", bridge, "mtu", mtu}));
    for (int host = 1; host <= spec.hosts; ++host) {
      VethEnd port{sw, SwitchPort(spec.name, host)};
      AddVethPair(plan, host_end(host), port, spec.mtu);
      plan.push_back(InNamespace(sw, {"link", "set", "dev", port.device, "master", bridge}));
      plan.push_back(InNamespace(sw, {"link", "set", "dev", port.device, "up"}));
    }
    plan.push_back(InNamespace(sw, {"link", "set", "dev", bridge, "up"}));
  }
  for (int host = 1; host <= spec.hosts; ++host) {
    AddAddressAndUp(plan, host_end(host), HostAddress(subnet_index, host));
  }
  return plan;
}

std::vector<Argv> BuildOffloadPlan(const StandSpec& spec) {
  std::vector<Argv> plan;
  if (spec.offloads == Offloads{}) return plan;
  for (const auto& end : VethEnds(spec)) {
    Argv argv = {"ip", "netns", "exec", end.netns, "ethtool", "-K", end.device};
    // Checksumming first: TSO depends on it (Validate rejects tso on + checksum off).
    AddToggle(argv, "tx", spec.offloads.checksum);
    AddToggle(argv, "rx", spec.offloads.checksum);
    AddToggle(argv, "tso", spec.offloads.tso);
    AddToggle(argv, "gso", spec.offloads.gso);
    AddToggle(argv, "gro", spec.offloads.gro);
    plan.push_back(std::move(argv));
  }
  return plan;
}

std::vector<Argv> ShapeOneEnd(const VethEnd& end, const StandSpec& spec, Shaper shaper) {
  std::vector<Argv> plan;
  // With --bottleneck the switch's ports are the slow hop and hold the queue asked for.
  const bool bottleneck = spec.bottleneck && end.netns == SwitchNamespace(spec.name);
  std::optional<uint64_t> rate = ProfileBitsPerSecond(bottleneck ? *spec.bottleneck : spec.profile);
  NB_CHECK(rate.has_value() == (shaper != Shaper::kNone));
  if (!rate) {
    if (spec.delay_ms) {
      plan.push_back(
          QdiscUnder(end, shaper, {"netem", "delay", fmt::format("{}ms", *spec.delay_ms)}));
    }
    if (spec.queue)
      plan.push_back(QdiscUnder(end, shaper, {std::string(QueueKindName(*spec.queue))}));
    return plan;
  }
  // The queue asked for: the bottleneck's with one, the one host's with --queue-limit-on.
  const bool deep = spec.bottleneck ? bottleneck
                    : spec.queue_limit_on
                        ? end.netns == HostNamespace(spec.name, *spec.queue_limit_on) &&
                              end.device == HostDevice(spec.name, *spec.queue_limit_on)
                        : true;
  Shaping shaping = ComputeShaping(*rate, spec.mtu, deep ? spec.queue_limit : std::nullopt);
  AddShaper(plan, end, spec, shaper, shaping);
  if (spec.delay_ms) {
    plan.push_back(QdiscUnder(end, shaper,
                              {"netem", "delay", fmt::format("{}ms", *spec.delay_ms), "limit",
                               std::to_string(NetemLimitPackets(spec, shaping))}));
  } else if (spec.queue) {
    // Grafted over tbf's own byte FIFO, or in place of htb's bfifo.
    plan.push_back(QdiscUnder(end, shaper, {std::string(QueueKindName(*spec.queue))}));
  } else if (shaper == Shaper::kHtb) {
    plan.push_back(
        QdiscUnder(end, shaper, {"bfifo", "limit", std::to_string(shaping.limit_bytes)}));
  }
  return plan;
}

std::vector<Argv> BuildShapingPlan(const StandSpec& spec, Shaper shaper) {
  std::vector<Argv> plan;
  for (const auto& end : VethEnds(spec)) {
    auto one = ShapeOneEnd(end, spec, shaper);
    plan.insert(plan.end(), one.begin(), one.end());
  }
  return plan;
}

std::vector<Argv> BuildDownPlan(const std::vector<std::string>& namespaces,
                                const std::vector<std::string>& root_devices) {
  std::vector<Argv> plan;
  plan.reserve(namespaces.size() + root_devices.size());
  for (const auto& ns : namespaces) plan.push_back({"ip", "netns", "del", ns});
  for (const auto& dev : root_devices) plan.push_back({"ip", "link", "del", "dev", dev});
  return plan;
}

Argv QdiscProbeCommand(std::string_view netns, std::string_view kind) {
  Argv argv = {"tc", "-n", std::string(netns)};
  AddProbeWords(argv, kind);
  return argv;
}

Argv QdiscProbeCleanupCommand(std::string_view netns) {
  return Tc(netns, {"qdisc", "del", "dev", "lo", "root"});
}

Argv ScratchQdiscProbeCommand(std::string_view kind) {
  Argv argv = {"unshare", "--net", "tc"};
  AddProbeWords(argv, kind);
  return argv;
}

}  // namespace nicbench::stand
