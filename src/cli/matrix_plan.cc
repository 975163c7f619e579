#include "cli/matrix_plan.h"

#include <algorithm>
#include <random>
#include <set>

#include <fmt/format.h>

#include "base/units.h"
#include "record/test_spec.h"
#include "stand/spec.h"

namespace nicbench::cli {
namespace {

struct RunOption {
  const char* short_name;  // without '-', "" when none
  const char* long_name;   // without "--"
  bool flag;               // takes no value; varied as on|off
};

// The `run` options a matrix may vary (run_command.cc's table, less those that make no sense
// per variant: the host, -J, --loopback, -R/--bidir/-u which direction/proto cover).
constexpr RunOption kRunOptions[] = {
    {"t", "time", false},
    {"n", "bytes", false},
    {"k", "blockcount", false},
    {"i", "interval", false},
    {"P", "parallel", false},
    {"b", "bitrate", false},
    {"l", "length", false},
    {"w", "window", false},
    {"M", "set-mss", false},
    {"C", "congestion", false},
    {"S", "tos", false},
    {"O", "omit", false},
    {"", "zerocopy", false},
    {"", "threads", false},
    {"B", "bind", false},
    {"", "cport", false},
    {"", "connect-timeout", false},
    {"N", "no-delay", true},
    {"Z", "", true},
    {"", "skip-rx-copy", true},
    {"", "repeating-payload", true},
    {"", "udp-counters-64bit", true},
    {"", "no-samples", true},
    {"", "udp-offload", true},
};

const RunOption* FindRunOption(std::string_view name) {
  const bool dashed = name.starts_with("-");
  const std::string_view bare = name.substr(name.find_first_not_of('-') == std::string_view::npos
                                                ? name.size()
                                                : name.find_first_not_of('-'));
  for (const RunOption& o : kRunOptions) {
    const bool long_match =
        !bare.empty() && bare == o.long_name && (!dashed || name.starts_with("--"));
    const bool short_match =
        *o.short_name && bare == o.short_name && name.size() == bare.size() + 1;
    if (long_match || short_match) return &o;
  }
  return nullptr;
}

std::string Spelling(const RunOption& o) {
  return *o.long_name ? std::string("--") + o.long_name : std::string("-") + o.short_name;
}

bool UsesPlaceholder(const std::string& command, std::string_view name) {
  return command.find("{" + std::string(name) + "}") != std::string::npos ||
         command.find("{" + LabelKey(name) + "}") != std::string::npos;
}

Status CheckValues(const Vary& v, std::initializer_list<const char*> allowed) {
  for (const std::string& value : v.values) {
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return value == a; })) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      return Fail(fmt::format("--vary {}: '{}' is not one of {}", v.name, value, list));
    }
  }
  return Ok();
}

Status CheckStandValues(const Vary& v) {
  if (v.name == "profile") {
    for (const std::string& value : v.values) {
      if (auto p = stand::ParseProfile(value); !p) {
        return Fail(fmt::format("--vary profile: {}", p.error().message));
      }
    }
    return Ok();
  }
  if (v.name == "mtu") {
    for (const std::string& value : v.values) {
      auto mtu = ParseUnsigned(value);
      if (!mtu || *mtu < static_cast<uint64_t>(stand::kMinMtu) ||
          *mtu > static_cast<uint64_t>(stand::kMaxMtu)) {
        return Fail(fmt::format("--vary mtu: '{}' is not an MTU in {}..{}", value, stand::kMinMtu,
                                stand::kMaxMtu));
      }
    }
    return Ok();
  }
  // fifo: the shaper's own byte queue, as a stand without --queue has.
  if (v.name == "queue") return CheckValues(v, {"fifo", "fq_codel", "cake"});
  return CheckValues(v, {"on", "off"});
}

Result<VaryRole> RoleOf(const Vary& v, bool stand_link, bool used_by_commands) {
  if (v.name == "direction") {
    if (auto s = CheckValues(v, {"forward", "reverse", "bidir"}); !s)
      return tl::unexpected(s.error());
    return VaryRole{VaryKind::kDirection, ""};
  }
  if (v.name == "proto") {
    if (auto s = CheckValues(v, {"tcp", "udp"}); !s) return tl::unexpected(s.error());
    return VaryRole{VaryKind::kProto, ""};
  }
  if (v.name == "streams") {
    for (const std::string& value : v.values) {
      auto n = ParseUnsigned(value);
      if (!n || *n == 0 || *n > static_cast<uint64_t>(record::kMaxParallelStreams)) {
        return Fail(fmt::format("--vary streams: '{}' is not a stream count 1..{}", value,
                                record::kMaxParallelStreams));
      }
    }
    return VaryRole{VaryKind::kStreams, "--parallel"};
  }
  if (IsStandToggle(v.name) && stand_link) {
    if (auto s = CheckStandValues(v); !s) return tl::unexpected(s.error());
    return VaryRole{VaryKind::kStand, ""};
  }
  if (const RunOption* o = FindRunOption(v.name)) {
    if (o->flag) {
      if (auto s = CheckValues(v, {"on", "off"}); !s) return tl::unexpected(s.error());
    }
    return VaryRole{o->flag ? VaryKind::kRunFlag : VaryKind::kRunOption, Spelling(*o)};
  }
  if (used_by_commands) return VaryRole{VaryKind::kSetup, ""};
  return Fail(fmt::format(
      "--vary {}: not a name nicbench knows (direction, streams, proto, a run option such as -w "
      "or -C{}) and no --setup or --teardown uses {{{}}}",
      v.name,
      stand_link ? ", or a stand toggle: tso, gso, gro, mtu, profile"
                 : "; tso, gso, gro, mtu, profile and queue apply on a stand link only",
      v.name));
}

}  // namespace

Result<Vary> ParseVary(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Fail(fmt::format("--vary '{}': expected NAME=V1,V2,...", text));
  }
  Vary v;
  v.name = std::string(text.substr(0, eq));
  const std::string_view list = text.substr(eq + 1);
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    std::string value(list.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (value.empty()) return Fail(fmt::format("--vary '{}': an empty value", text));
    if (std::find(v.values.begin(), v.values.end(), value) != v.values.end()) {
      return Fail(fmt::format("--vary '{}': '{}' is listed twice", text, value));
    }
    v.values.push_back(std::move(value));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  const std::string key = LabelKey(v.name);
  if (key == "experiment" || key == "round" || key == "variant") {
    return Fail(fmt::format("--vary {}: the name is reserved for the matrix's own labels", v.name));
  }
  if (auto label = store::ParseLabel(key + "=" + v.values.front()); !label) {
    return Fail(fmt::format("--vary {}: {}", v.name, label.error().message));
  }
  return v;
}

bool IsStandToggle(std::string_view name) {
  return name == "tso" || name == "gso" || name == "gro" || name == "mtu" || name == "profile" ||
         name == "queue";
}

size_t VariantCount(const std::vector<Vary>& varies) {
  size_t count = 1;
  for (const Vary& v : varies) {
    if (v.values.empty()) return 0;
    count = std::min(count * std::min(v.values.size(), kMaxVariants + 1), kMaxVariants + 1);
  }
  return count;
}

Result<std::vector<VaryRole>> Classify(const std::vector<Vary>& varies, bool stand_link,
                                       const std::string& setup, const std::string& teardown) {
  if (VariantCount(varies) > kMaxVariants) {
    return Fail(fmt::format("--vary: the values make more than {} variants", kMaxVariants));
  }
  std::vector<VaryRole> roles;
  std::set<std::string> keys;
  for (const Vary& v : varies) {
    if (!keys.insert(LabelKey(v.name)).second) {
      return Fail(fmt::format("--vary {}: the name is varied twice", v.name));
    }
    const bool used = UsesPlaceholder(setup, v.name) || UsesPlaceholder(teardown, v.name);
    auto role = RoleOf(v, stand_link, used);
    if (!role) return tl::unexpected(role.error());
    roles.push_back(*role);
  }
  return roles;
}

std::vector<Variant> CrossProduct(const std::vector<Vary>& varies) {
  std::vector<Variant> out = {{}};
  for (const Vary& v : varies) {
    std::vector<Variant> next;
    for (const Variant& partial : out) {
      for (const std::string& value : v.values) {
        Variant longer = partial;
        longer.emplace_back(v.name, value);
        next.push_back(std::move(longer));
      }
    }
    out = std::move(next);
  }
  return out;
}

std::string VariantName(const Variant& variant) {
  std::string name;
  for (const auto& [key, value] : variant) {
    name += fmt::format("{}{}={}", name.empty() ? "" : " ", LabelKey(key), value);
  }
  return name;
}

std::string LabelKey(std::string_view name) {
  const size_t first = name.find_first_not_of('-');
  return first == std::string_view::npos ? std::string(name) : std::string(name.substr(first));
}

std::vector<std::vector<int>> Schedule(int variants, int repeat, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<int>> rounds;
  for (int r = 0; r < repeat; ++r) {
    std::vector<int> order(variants);
    for (int i = 0; i < variants; ++i) order[i] = i;
    for (int i = variants - 1; i > 0; --i) {
      std::swap(order[i], order[static_cast<int>(rng() % static_cast<uint64_t>(i + 1))]);
    }
    rounds.push_back(std::move(order));
  }
  return rounds;
}

std::string Substitute(const std::string& command, const Variant& variant) {
  std::string out = command;
  for (const auto& [name, value] : variant) {
    for (const std::string& token : {"{" + name + "}", "{" + LabelKey(name) + "}"}) {
      for (size_t at = out.find(token); at != std::string::npos;
           at = out.find(token, at + value.size())) {
        out.replace(at, token.size(), value);
      }
    }
  }
  return out;
}

std::vector<std::string> RunArguments(const std::string& host,
                                      const std::vector<std::string>& run_options,
                                      const Variant& variant, const std::vector<VaryRole>& roles) {
  std::vector<std::string> args = {host};
  args.insert(args.end(), run_options.begin(), run_options.end());
  for (size_t i = 0; i < variant.size() && i < roles.size(); ++i) {
    const std::string& value = variant[i].second;
    switch (roles[i].kind) {
      case VaryKind::kDirection:
        if (value == "reverse") args.emplace_back("--reverse");
        if (value == "bidir") args.emplace_back("--bidir");
        break;
      case VaryKind::kProto:
        if (value == "udp") args.emplace_back("--udp");
        break;
      case VaryKind::kStreams:
      case VaryKind::kRunOption:
        args.push_back(roles[i].option);
        args.push_back(value);
        break;
      case VaryKind::kRunFlag:
        if (value == "on") args.push_back(roles[i].option);
        break;
      case VaryKind::kStand:
      case VaryKind::kSetup: break;
    }
  }
  return args;
}

store::Labels RunLabels(int64_t experiment, int round, int variant_index, const Variant& variant) {
  store::Labels labels = {{"experiment", std::to_string(experiment)},
                          {"round", std::to_string(round)},
                          {"variant", std::to_string(variant_index)}};
  for (const auto& [name, value] : variant) labels[LabelKey(name)] = value;
  return labels;
}

namespace {

// What NewDefinition (matrix_command.cc) checked of the arguments, checked again on a definition
// read back, plus its schedule against its variants.
Status CheckDefinition(const MatrixDefinition& d) {
  const auto bad = [](const std::string& why) {
    return Fail("the experiment's definition does not read: " + why);
  };
  if (d.varies.empty()) return bad("no vary");
  for (const Vary& v : d.varies) {
    std::string text = v.name + "=";
    for (size_t i = 0; i < v.values.size(); ++i) text += (i ? "," : "") + v.values[i];
    auto again = ParseVary(text);
    if (!again) return bad(again.error().message);
    if (again->values != v.values) return bad("vary " + v.name + ": a value holds a comma");
  }
  if (d.repeat < 1 || d.repeat > 1000) return bad(fmt::format("{} rounds", d.repeat));
  const size_t variants = VariantCount(d.varies);
  if (variants > kMaxVariants) return bad(fmt::format("over {} variants", kMaxVariants));
  for (const std::vector<int>& round : d.schedule) {
    for (const int v : round) {
      if (v < 0 || static_cast<size_t>(v) >= variants) {
        return bad(fmt::format("the schedule names variant {} of {}", v, variants));
      }
    }
  }
  return Ok();
}

}  // namespace

nlohmann::json DefinitionToJson(const MatrixDefinition& d) {
  nlohmann::json varies = nlohmann::json::array();
  for (const Vary& v : d.varies) varies.push_back({{"name", v.name}, {"values", v.values}});
  return {{"host", d.host},
          {"vary", varies},
          {"repeat", d.repeat},
          {"seed", d.seed},
          {"setup", d.setup},
          {"teardown", d.teardown},
          {"run_options", d.run_options},
          {"schedule", d.schedule}};
}

Result<MatrixDefinition> DefinitionFromJson(const nlohmann::json& j) {
  try {
    MatrixDefinition d;
    d.host = j.at("host").get<std::string>();
    for (const auto& v : j.at("vary")) {
      d.varies.push_back(
          {v.at("name").get<std::string>(), v.at("values").get<std::vector<std::string>>()});
    }
    d.repeat = j.at("repeat").get<int>();
    d.seed = j.at("seed").get<uint64_t>();
    d.setup = j.at("setup").get<std::string>();
    d.teardown = j.at("teardown").get<std::string>();
    d.run_options = j.at("run_options").get<std::vector<std::string>>();
    d.schedule = j.at("schedule").get<std::vector<std::vector<int>>>();
    if (auto s = CheckDefinition(d); !s) return tl::unexpected(s.error());
    return d;
  } catch (const std::exception& e) {
    return Fail(std::string("the experiment's definition does not read: ") + e.what());
  }
}

}  // namespace nicbench::cli
