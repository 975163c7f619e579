#include "analysis/differs.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "analysis/figures.h"
#include "analysis/frequency.h"

namespace nicbench::analysis {
namespace {

template <typename T>
std::string Text(const record::Measured<T>& m, std::string (*show)(const T&)) {
  if (m.known()) return show(m.value());
  std::string text = std::string("unknown (") + record::MissingName(m.why());
  if (!m.detail().empty()) text += ": " + m.detail();
  return text + ")";
}

std::string Same(const std::string& s) { return s; }
std::string Number(const uint32_t& v) { return std::to_string(v); }

std::string NoText(const std::vector<record::OffloadState>&) { return {}; }

std::string Rings(const record::RingSizes& r) { return fmt::format("rx {} tx {}", r.rx, r.tx); }

std::string Coalesce(const record::Coalescing& c) {
  return fmt::format(
      "rx-usecs {} rx-frames {} tx-usecs {} tx-frames {} adaptive-rx {} "
      "adaptive-tx {}",
      c.rx_usecs, c.rx_frames, c.tx_usecs, c.tx_frames, c.adaptive_rx ? "on" : "off",
      c.adaptive_tx ? "on" : "off");
}

std::string QdiscText(const record::Qdisc& q) {
  if (q.rate_bits_per_second == 0) return q.kind;
  return fmt::format("{} rate {} bit/s", q.kind, q.rate_bits_per_second);
}

const char* DirectionText(record::Direction d) {
  switch (d) {
    case record::Direction::kForward: return "forward";
    case record::Direction::kReverse: return "reverse";
    case record::Direction::kBidirectional: return "bidir";
  }
  return "?";
}

const char* ZeroCopyText(record::ZeroCopy z) {
  switch (z) {
    case record::ZeroCopy::kOff: return "off";
    case record::ZeroCopy::kSendfile: return "sendfile";
    case record::ZeroCopy::kMsgZerocopy: return "msg";
  }
  return "?";
}

std::string OrDefault(uint64_t value) { return value == 0 ? "default" : std::to_string(value); }

void AddOptions(const record::TestSpec& s, std::vector<Fact>& out) {
  out.emplace_back("options.protocol", record::TransportName(s.transport));
  out.emplace_back("options.direction", DirectionText(s.direction));
  out.emplace_back("options.streams", std::to_string(s.parallel));
  std::string end = s.bytes    ? fmt::format("{} bytes", s.bytes)
                    : s.blocks ? fmt::format("{} blocks", s.blocks)
                               : fmt::format("{} ms", s.duration.count());
  out.emplace_back("options.length", end);
  out.emplace_back("options.omit", fmt::format("{} ms", s.omit.count()));
  out.emplace_back("options.block", OrDefault(s.block_bytes));
  out.emplace_back("options.bitrate",
                   s.rate_bits_per_second ? std::to_string(s.rate_bits_per_second) : "unlimited");
  out.emplace_back("options.fq-rate", OrDefault(s.fq_rate_bits_per_second));
  out.emplace_back("options.window", OrDefault(s.window_bytes));
  out.emplace_back("options.mss", OrDefault(s.mss_bytes));
  out.emplace_back("options.no-delay", s.no_delay ? "on" : "off");
  out.emplace_back("options.congestion", s.congestion.empty() ? "default" : s.congestion);
  out.emplace_back("options.tos", std::to_string(s.tos));
  out.emplace_back("options.zerocopy", ZeroCopyText(s.zero_copy));
  out.emplace_back("options.skip-rx-copy", s.skip_rx_copy ? "on" : "off");
}

void AddEnd(const char* role, const record::RunRecord& run, const record::EndpointRecord& end,
            std::vector<Fact>& out) {
  const std::string p = std::string(role) + ".";
  const record::NicFacts& nic = end.nic;
  out.emplace_back(p + "software", end.software);
  out.emplace_back(p + "host", Text(end.host.hostname, Same));
  out.emplace_back(p + "kernel", Text(end.host.kernel, Same));
  out.emplace_back(p + "interface", nic.interface);
  out.emplace_back(p + "driver", Text(nic.driver, Same));
  out.emplace_back(p + "driver-version", Text(nic.driver_version, Same));
  out.emplace_back(p + "firmware-version", Text(nic.firmware_version, Same));
  out.emplace_back(p + "mtu", Text(nic.mtu, Number));
  out.emplace_back(p + "rings", Text(nic.rings, Rings));
  out.emplace_back(p + "coalescing", Text(nic.coalescing, Coalesce));
  out.emplace_back(p + "irq-mode", Text(nic.irq_mode, Same));
  out.emplace_back(p + "qdisc", Text(nic.qdisc, QdiscText));
  out.emplace_back(p + "cpu-frequency", BusiestCoreFrequencyText(run, end));
  out.emplace_back(p + "congestion",
                   end.congestion_used.empty() ? "unknown (not reported)" : end.congestion_used);
  if (const auto* offloads = nic.offloads.get()) {
    for (const record::OffloadState& o : *offloads) {
      out.emplace_back(p + "offload." + o.name, o.on ? "on" : "off");
    }
  } else {
    out.emplace_back(p + "offloads", Text(nic.offloads, NoText));
  }
}

// Per fact, its values over a set and the runs holding each.
struct FactTally {
  std::unordered_map<std::string, std::map<std::string, int>> values;
  void Add(const std::vector<Fact>& facts) {
    for (const auto& [name, value] : facts) ++values[name][value];
  }
  std::vector<ValueCount> Of(const std::string& name) const {
    std::vector<ValueCount> out;
    const auto it = values.find(name);
    if (it == values.end()) return out;
    for (const auto& [value, runs] : it->second) out.push_back({value, runs});
    std::stable_sort(out.begin(), out.end(),
                     [](const ValueCount& l, const ValueCount& r) { return l.runs > r.runs; });
    return out;
  }
};

bool SameValues(const std::vector<ValueCount>& a, const std::vector<ValueCount>& b) {
  if (a.size() != b.size()) return false;
  std::vector<std::string> x, y;
  for (const auto& v : a) x.push_back(v.value);
  for (const auto& v : b) y.push_back(v.value);
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y;
}

}  // namespace

std::vector<Fact> FactsOf(const record::RunRecord& run) {
  std::vector<Fact> out;
  AddOptions(run.spec, out);
  for (const Role role : {Role::kClient, Role::kServer}) {
    if (const record::EndpointRecord* end = EndIn(run, role))
      AddEnd(record::RoleName(role), run, *end, out);
  }
  return out;
}

std::vector<FactDifference> WhatDiffers(const std::vector<const record::RunRecord*>& a,
                                        const std::vector<const record::RunRecord*>& b) {
  std::vector<std::vector<Fact>> facts_a, facts_b;
  for (const record::RunRecord* run : a) facts_a.push_back(FactsOf(*run));
  for (const record::RunRecord* run : b) facts_b.push_back(FactsOf(*run));
  std::vector<const std::vector<Fact>*> pa, pb;
  for (const auto& f : facts_a) pa.push_back(&f);
  for (const auto& f : facts_b) pb.push_back(&f);
  return WhatDiffers(pa, pb);
}

std::vector<FactDifference> WhatDiffers(const std::vector<const std::vector<Fact>*>& a,
                                        const std::vector<const std::vector<Fact>*>& b) {
  FactTally ta, tb;
  std::vector<std::string> order;  // fact names in first-seen order
  std::unordered_map<std::string, bool> seen;
  for (const auto* set : {&a, &b}) {
    for (const std::vector<Fact>* facts : *set) {
      (set == &a ? ta : tb).Add(*facts);
      for (const auto& fact : *facts) {
        if (!seen[fact.first]) order.push_back(fact.first);
        seen[fact.first] = true;
      }
    }
  }
  std::vector<FactDifference> out;
  for (const std::string& name : order) {
    FactDifference d;
    d.name = name;
    d.a = ta.Of(name);
    d.b = tb.Of(name);
    d.a_mixed = d.a.size() > 1;
    d.b_mixed = d.b.size() > 1;
    d.between = !SameValues(d.a, d.b);
    if (d.between || d.a_mixed || d.b_mixed) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace nicbench::analysis
