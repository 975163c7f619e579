#include "stand/state.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/log.h"

namespace nicbench::stand {
namespace {

using nlohmann::json;

json OffloadsToJson(const Offloads& offloads) {
  return {{"tso", ToggleName(offloads.tso)},
          {"gso", ToggleName(offloads.gso)},
          {"gro", ToggleName(offloads.gro)},
          {"checksum", ToggleName(offloads.checksum)}};
}

Result<Toggle> ToggleFromJson(const json& value) {
  if (!value.is_string()) return Fail("offload toggle is not a string");
  auto text = value.get<std::string>();
  if (text == "default") return Toggle::kDefault;
  return ParseToggle(text);
}

json OptionalBool(const std::optional<bool>& value) { return value ? json(*value) : json(nullptr); }

std::optional<bool> BoolOrAbsent(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

Result<Shaper> ShaperFromName(const std::string& name) {
  for (Shaper shaper : {Shaper::kNone, Shaper::kTbf, Shaper::kHtb}) {
    if (ShaperName(shaper) == name) return shaper;
  }
  return Fail(fmt::format("unknown shaper '{}'", name));
}

Result<Offloads> OffloadsFromJson(const json& object) {
  Offloads offloads;
  struct Field {
    const char* key;
    Toggle Offloads::*member;
  };
  for (auto [key, member] :
       {Field{"tso", &Offloads::tso}, Field{"gso", &Offloads::gso}, Field{"gro", &Offloads::gro},
        Field{"checksum", &Offloads::checksum}}) {
    if (!object.contains(key)) return Fail(fmt::format("offloads.{} missing", key));
    auto toggle = ToggleFromJson(object.at(key));
    if (!toggle) return tl::unexpected(toggle.error());
    offloads.*member = *toggle;
  }
  return offloads;
}

Result<StandSpec> SpecFromJson(const json& object) {
  StandSpec spec;
  spec.name = object.at("name").get<std::string>();
  spec.hosts = object.at("hosts").get<int>();
  auto profile = ParseProfile(object.at("profile").get<std::string>());
  if (!profile) return tl::unexpected(profile.error());
  spec.profile = *profile;
  spec.mtu = object.at("mtu").get<int>();
  auto offloads = OffloadsFromJson(object.at("offloads"));
  if (!offloads) return tl::unexpected(offloads.error());
  spec.offloads = *offloads;
  if (auto delay = object.find("delay_ms"); delay != object.end() && !delay->is_null()) {
    spec.delay_ms = delay->get<int>();
  }
  if (auto b = object.find("bottleneck"); b != object.end() && !b->is_null()) {
    auto bottleneck = ParseProfile(b->get<std::string>());
    if (!bottleneck) return tl::unexpected(bottleneck.error());
    spec.bottleneck = *bottleneck;
  }
  if (auto q = object.find("queue_limit"); q != object.end() && !q->is_null()) {
    auto limit = ParseQueueLimit(q->get<std::string>());
    if (!limit) return tl::unexpected(limit.error());
    spec.queue_limit = *limit;
  }
  if (auto h = object.find("queue_limit_on"); h != object.end() && !h->is_null()) {
    spec.queue_limit_on = h->get<int>();
  }
  if (auto q = object.find("queue"); q != object.end() && !q->is_null()) {
    auto kind = ParseQueueKind(q->get<std::string>());
    if (!kind) return tl::unexpected(kind.error());
    spec.queue = *kind;
  }
  if (auto valid = Validate(spec); !valid) return tl::unexpected(valid.error());
  return spec;
}

}  // namespace

std::string StateToJson(const StandState& state) {
  const StandSpec& spec = state.spec;
  json doc = {
      {"version", kStateVersion},
      {"spec",
       {{"name", spec.name},
        {"hosts", spec.hosts},
        {"profile", ProfileName(spec.profile)},
        {"mtu", spec.mtu},
        {"offloads", OffloadsToJson(spec.offloads)},
        {"delay_ms", spec.delay_ms ? json(*spec.delay_ms) : json(nullptr)},
        {"queue_limit", spec.queue_limit ? json(QueueLimitText(*spec.queue_limit)) : json(nullptr)},
        {"bottleneck", spec.bottleneck ? json(ProfileName(*spec.bottleneck)) : json(nullptr)},
        {"queue", spec.queue ? json(QueueKindName(*spec.queue)) : json(nullptr)},
        {"queue_limit_on", spec.queue_limit_on ? json(*spec.queue_limit_on) : json(nullptr)}}},
      {"subnet_index", state.subnet_index},
      {"shaper", ShaperName(state.shaper)},
      {"qdiscs",
       {{"tbf", OptionalBool(state.qdiscs.tbf)},
        {"htb", OptionalBool(state.qdiscs.htb)},
        {"netem", OptionalBool(state.qdiscs.netem)}}},
  };
  return doc.dump(2) + "\n";
}

Result<StandState> StateFromJson(std::string_view text) {
  auto doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Fail("stand state is not a JSON object");
  // The file is ours, but a truncated or hand-edited one must not crash `list`: json's
  // type_error/out_of_range become an error value here.
  try {
    if (doc.at("version").get<int>() != kStateVersion) {
      return Fail(fmt::format("stand state version {} (expected {})", doc.at("version").dump(),
                              kStateVersion));
    }
    StandState state;
    auto spec = SpecFromJson(doc.at("spec"));
    if (!spec) return tl::unexpected(spec.error());
    state.spec = std::move(*spec);
    state.subnet_index = doc.at("subnet_index").get<int>();
    if (state.subnet_index < 0 || state.subnet_index >= kSubnetCount) {
      return Fail("stand state subnet_index out of range");
    }
    auto shaper = ShaperFromName(doc.at("shaper").get<std::string>());
    if (!shaper) return tl::unexpected(shaper.error());
    state.shaper = *shaper;
    if (auto qdiscs = doc.find("qdiscs"); qdiscs != doc.end() && qdiscs->is_object()) {
      state.qdiscs = {BoolOrAbsent(*qdiscs, "tbf"), BoolOrAbsent(*qdiscs, "htb"),
                      BoolOrAbsent(*qdiscs, "netem")};
    }
    return state;
  } catch (const json::exception& e) {
    return Fail(fmt::format("stand state: {}", e.what()));
  }
}

Result<int> ChooseSubnet(const std::vector<int>& used) {
  for (int index = 0; index < kSubnetCount; ++index) {
    if (std::find(used.begin(), used.end(), index) == used.end()) return index;
  }
  return Fail("all 512 stand subnets of 198.18.0.0/15 are in use");
}

std::string StateDir::PathOf(std::string_view name) const {
  return fmt::format("{}/stand-{}.json", dir_, name);
}

Status StateDir::Save(const StandState& state) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return Fail(fmt::format("cannot create {}", dir_), ec.value());
  std::string path = PathOf(state.spec.name);
  std::string temp = path + ".tmp";
  {
    std::ofstream file(temp, std::ios::trunc);
    file << StateToJson(state);
    if (!file.flush()) return Fail(fmt::format("cannot write {}", temp));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) return FailErrno("rename " + temp);
  return Ok();
}

Result<std::optional<StandState>> StateDir::Load(std::string_view name) const {
  std::string path = PathOf(name);
  std::ifstream file(path);
  if (!file) {
    if (errno == ENOENT) return std::optional<StandState>();
    return FailErrno("cannot read " + path);
  }
  std::stringstream text;
  text << file.rdbuf();
  auto state = StateFromJson(text.str());
  if (!state) return Fail(fmt::format("{}: {}", path, state.error().message));
  return std::optional<StandState>(std::move(*state));
}

Status StateDir::Remove(std::string_view name) const {
  std::string path = PathOf(name);
  if (unlink(path.c_str()) != 0 && errno != ENOENT) return FailErrno("cannot remove " + path);
  return Ok();
}

Result<std::vector<StandState>> StateDir::LoadAll() const {
  std::vector<StandState> states;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir_, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return states;
    return Fail(fmt::format("cannot list {}", dir_), ec.value());
  }
  for (const auto& entry : it) {
    std::string file = entry.path().filename().string();
    if (file.rfind("stand-", 0) != 0 || !file.ends_with(".json")) continue;
    std::string name = file.substr(6, file.size() - 6 - 5);
    if (!ValidateName(name)) continue;
    auto state = Load(name);
    if (!state) {
      LogWarning(state.error().ToString());
    } else if (*state) {
      states.push_back(std::move(**state));
    }
  }
  std::sort(states.begin(), states.end(),
            [](const StandState& a, const StandState& b) { return a.spec.name < b.spec.name; });
  return states;
}

StateDir::Lock::~Lock() {
  if (fd_ >= 0) close(fd_);  // closing the descriptor releases the flock
}

Result<StateDir::Lock> StateDir::Acquire() const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return Fail(fmt::format("cannot create {}", dir_), ec.value());
  std::string path = dir_ + "/.lock";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return FailErrno("cannot open " + path);
  while (flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    auto error = FailErrno("flock " + path);
    close(fd);
    return error;
  }
  return Lock(fd);
}

}  // namespace nicbench::stand
