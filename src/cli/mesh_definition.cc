#include "cli/mesh_definition.h"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "base/units.h"
#include "cli/fleet_options.h"
#include "cli/option_rows.h"

namespace nicbench::cli {
namespace {

bool NameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

Status CheckName(const std::string& what, const std::string& name) {
  if (name.empty() || name.size() > 64 || !std::all_of(name.begin(), name.end(), NameChar)) {
    return Fail(fmt::format("{} '{}': 1 to 64 letters, digits, '_', '.' or '-'", what, name));
  }
  return Ok();
}

// Every ordered pair of `from` x `to` (distinct hosts), once; the reverse too when asked.
void AddPairs(const std::vector<std::string>& from, const std::vector<std::string>& to, bool both,
              store::MeshSpec& spec) {
  auto add = [&spec](const std::string& a, const std::string& b) {
    std::pair<std::string, std::string> p{a, b};
    if (a != b && std::find(spec.pairs.begin(), spec.pairs.end(), p) == spec.pairs.end()) {
      spec.pairs.push_back(std::move(p));
    }
  };
  for (const std::string& a : from) {
    for (const std::string& b : to) {
      add(a, b);
      if (both) add(b, a);
    }
  }
}

// The checks both forms of a definition share: the name, the hosts, the test, a period longer
// than the test, and at least one pair. `every` is the period as typed, for the message.
Result<store::MeshSpec> Finish(store::MeshSpec spec, const std::string& every,
                               const std::string& where) {
  if (auto s = CheckName("mesh name", spec.name); !s) return tl::unexpected(s.error());
  if (auto s = CheckMeshHosts(where, spec.hosts); !s) return tl::unexpected(s.error());
  auto checked = CheckMeshTest(where + "test", spec.test);
  if (!checked) return tl::unexpected(checked.error());
  const auto length = checked->spec.duration + checked->spec.omit;
  if (std::chrono::duration<double>(spec.every_secs) <= length) {
    return Fail(fmt::format("{}every '{}' is not longer than the test ({} s)", where, every,
                            std::chrono::duration<double>(length).count()));
  }
  if (spec.pairs.empty()) return Fail(where + "the mesh has no pair of distinct hosts to test");
  return spec;
}

}  // namespace

std::vector<std::string> SplitHosts(const std::string& text) {
  std::string hosts = text;
  std::replace(hosts.begin(), hosts.end(), ',', ' ');
  return SplitWords(hosts);
}

Status CheckMeshHosts(const std::string& where, const std::vector<std::string>& hosts) {
  std::set<std::string> seen;
  for (const std::string& h : hosts) {
    if (auto s = CheckName(where + "host", h); !s) return s;
    if (!seen.insert(h).second) return Fail(fmt::format("{}host '{}' is named twice", where, h));
  }
  if (hosts.size() < 2) return Fail(where + "a mesh needs at least two hosts");
  return Ok();
}

Result<engine::ClientConfig> CheckMeshTest(std::string_view what,
                                           const std::vector<std::string>& words) {
  // The options are checked against a name that is never resolved.
  return MeshTest("mesh-peer.invalid", words, what);
}

Result<store::MeshSpec> MeshFromArgs(const MeshArgs& a, store::MeshSpec spec) {
  AddPairs(spec.hosts, spec.hosts, false, spec);
  if (!a.both_directions) {
    // Every host with every other once: the first named sends.
    std::vector<std::pair<std::string, std::string>> once;
    for (size_t i = 0; i < spec.hosts.size(); ++i) {
      for (size_t j = i + 1; j < spec.hosts.size(); ++j) {
        once.emplace_back(spec.hosts[i], spec.hosts[j]);
      }
    }
    spec.pairs = std::move(once);
  }
  spec.definition = {{"hosts", spec.hosts},
                     {"every", a.every},
                     {"test", a.test},
                     {"both_directions", a.both_directions}};
  return Finish(std::move(spec), a.every, "");
}

namespace {

Result<std::vector<std::string>> Names(const nlohmann::json& v, const std::string& member) {
  if (!v.is_array()) return Fail(member + ": expected an array of host names");
  std::vector<std::string> names;
  for (const auto& n : v) {
    if (!n.is_string()) return Fail(member + ": expected an array of host names");
    names.push_back(n.get<std::string>());
  }
  return names;
}

Status ReadGroups(const nlohmann::json& doc, const std::string& where,
                  std::map<std::string, std::vector<std::string>>& groups, store::MeshSpec& spec) {
  if (!doc.contains("groups")) return Ok();
  if (!doc["groups"].is_object()) return Fail(where + "groups: expected an object");
  for (const auto& [name, members] : doc["groups"].items()) {
    auto names = Names(members, where + "groups." + name);
    if (!names) return tl::unexpected(names.error());
    for (const std::string& h : *names) {
      if (std::find(spec.hosts.begin(), spec.hosts.end(), h) == spec.hosts.end()) {
        spec.hosts.push_back(h);
      }
    }
    groups[name] = std::move(*names);
  }
  return Ok();
}

Status ReadBetween(const nlohmann::json& doc, const std::string& where, bool both,
                   const std::map<std::string, std::vector<std::string>>& groups,
                   store::MeshSpec& spec) {
  const nlohmann::json& between = doc["between"];
  if (!between.is_array()) return Fail(where + "between: expected [[GROUP, GROUP], ...]");
  for (const auto& pair : between) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string()) {
      return Fail(where + "between: expected [[GROUP, GROUP], ...]");
    }
    const std::string a = pair[0].get<std::string>(), b = pair[1].get<std::string>();
    for (const std::string& g : {a, b}) {
      if (!groups.count(g)) return Fail(fmt::format("{}between: no group '{}'", where, g));
    }
    AddPairs(groups.at(a), groups.at(b), both, spec);
  }
  return Ok();
}

}  // namespace

Result<store::MeshSpec> MeshFromJson(const std::string& name, const nlohmann::json& doc,
                                     const std::string& file) {
  const std::string where = file + ": ";
  if (!doc.is_object()) return Fail(where + "expected a JSON object");
  for (const auto& [key, value] : doc.items()) {
    static const std::set<std::string> kKnown = {
        "hosts", "groups", "between", "every", "test", "both_directions", "name", "description"};
    if (!kKnown.count(key)) return Fail(fmt::format("{}unknown member '{}'", where, key));
  }
  store::MeshSpec spec;
  spec.name = name;
  if (doc.contains("hosts")) {
    auto hosts = Names(doc["hosts"], where + "hosts");
    if (!hosts) return tl::unexpected(hosts.error());
    spec.hosts = std::move(*hosts);
  }
  std::map<std::string, std::vector<std::string>> groups;
  if (auto s = ReadGroups(doc, where, groups, spec); !s) return tl::unexpected(s.error());
  for (const char* text : {"every", "test"}) {
    if (doc.contains(text) && !doc[text].is_string()) {
      return Fail(fmt::format("{}{}: expected a string", where, text));
    }
  }
  if (doc.contains("both_directions") && !doc["both_directions"].is_boolean()) {
    return Fail(where + "both_directions: expected true or false");
  }
  const bool both = doc.value("both_directions", false);
  if (doc.contains("between")) {
    if (auto s = ReadBetween(doc, where, both, groups, spec); !s) {
      return tl::unexpected(s.error());
    }
  } else {
    AddPairs(spec.hosts, spec.hosts, true, spec);
    if (!both) {
      std::erase_if(spec.pairs, [&spec](const auto& p) {
        auto index = [&spec](const std::string& h) {
          return std::find(spec.hosts.begin(), spec.hosts.end(), h) - spec.hosts.begin();
        };
        return index(p.first) > index(p.second);
      });
    }
  }
  const std::string every = doc.value("every", "1h");
  auto period = ParseDurationIn(where + "every", every, std::chrono::milliseconds(kMinMeshEveryMs),
                                std::chrono::milliseconds(kMaxMeshEveryMs));
  if (!period) return tl::unexpected(period.error());
  spec.every_secs = std::chrono::duration<double>(*period).count();
  spec.test = SplitWords(doc.value("test", "-t 10"));
  spec.definition = doc;
  return Finish(std::move(spec), every, where);
}

}  // namespace nicbench::cli
