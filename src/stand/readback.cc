#include "stand/readback.h"

#include <cmath>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace nicbench::stand {
namespace {

Argv TcIn(std::string_view netns, std::initializer_list<std::string> rest) {
  Argv argv = {"tc"};
  if (!netns.empty()) argv.insert(argv.end(), {"-n", std::string(netns)});
  argv.insert(argv.end(), rest);
  return argv;
}

Result<std::string> RunForOutput(CommandRunner& runner, const Argv& argv) {
  auto output = runner.Run(argv);
  if (!output) return tl::unexpected(output.error());
  if (output->exit_code != 0) {
    std::string err = output->err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    return Fail(fmt::format("'{}' failed: {}", JoinArgv(argv), err));
  }
  return std::move(output->out);
}

// The lines of `text` without their '\n' (and no empty line after a final one).
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

}  // namespace

Result<uint64_t> ParseTcRate(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double multiplier;
  };
  // Longest suffixes first so "Mbit" is not read as "bit".
  static constexpr Unit kUnits[] = {{"Tbit", 1e12}, {"Gbit", 1e9}, {"Mbit", 1e6},
                                    {"Kbit", 1e3},  {"kbit", 1e3}, {"bit", 1.0}};
  for (const auto& unit : kUnits) {
    if (text.size() <= unit.suffix.size() ||
        text.substr(text.size() - unit.suffix.size()) != unit.suffix) {
      continue;
    }
    std::string number(text.substr(0, text.size() - unit.suffix.size()));
    char* end = nullptr;
    double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !(value >= 0) || !std::isfinite(value)) break;
    return static_cast<uint64_t>(std::llround(value * unit.multiplier));
  }
  return Fail(fmt::format("not a tc rate: '{}'", text));
}

Result<QdiscInfo> ParseQdiscJson(std::string_view json) {
  auto doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_array()) return Fail("tc -j qdisc output is not a JSON array");
  QdiscInfo info;
  info.kind = "noqueue";
  const nlohmann::json* root = nullptr;
  for (const auto& entry : doc) {
    if (entry.is_object() && entry.value("root", false)) {
      root = &entry;
      break;
    }
  }
  if (root == nullptr) return info;
  if (!(*root)["kind"].is_string()) return Fail("tc -j qdisc entry without a kind");
  info.kind = (*root)["kind"].get<std::string>();
  auto options = root->find("options");
  if (options == root->end() || !options->is_object()) return info;
  // tc reports tbf's rate in bytes per second (tc/q_tbf.c: print_u64 "rate").
  if (auto rate = options->find("rate"); rate != options->end() && rate->is_number_unsigned()) {
    info.rate_bits_per_second = rate->get<uint64_t>() * 8;
  }
  if (auto burst = options->find("burst"); burst != options->end() && burst->is_number_unsigned()) {
    info.burst_bytes = burst->get<uint64_t>();
  }
  if (auto overhead = options->find("overhead");
      overhead != options->end() && overhead->is_number_integer()) {
    info.overhead_bytes = overhead->get<int>();
  }
  return info;
}

Result<uint64_t> ParseHtbClassRate(std::string_view text) {
  for (std::string_view line : Lines(text)) {
    if (line.find("class htb 1:1 ") == std::string_view::npos) continue;
    size_t at = line.find(" rate ");
    if (at == std::string_view::npos) break;
    std::string_view rest = line.substr(at + 6);
    return ParseTcRate(rest.substr(0, rest.find(' ')));
  }
  return Fail("no htb class 1:1 with a rate in tc class output");
}

Result<QdiscInfo> ReadQdisc(CommandRunner& runner, std::string_view netns,
                            std::string_view device) {
  auto json =
      RunForOutput(runner, TcIn(netns, {"-j", "qdisc", "show", "dev", std::string(device)}));
  if (!json) return tl::unexpected(json.error());
  auto info = ParseQdiscJson(*json);
  if (!info || info->kind != "htb") return info;
  auto classes = RunForOutput(runner, TcIn(netns, {"class", "show", "dev", std::string(device)}));
  if (!classes) return tl::unexpected(classes.error());
  if (auto rate = ParseHtbClassRate(*classes)) info->rate_bits_per_second = *rate;
  return info;
}

Result<QdiscInfo> ReadQdisc(std::string_view netns, std::string_view device) {
  ProcessRunner runner;
  return ReadQdisc(runner, netns, device);
}

OffloadFlags ParseEthtoolFeatures(std::string_view text) {
  OffloadFlags flags;
  struct Field {
    std::string_view name;
    std::optional<bool> OffloadFlags::*member;
  };
  static constexpr Field kFields[] = {
      {"tcp-segmentation-offload", &OffloadFlags::tso},
      {"generic-segmentation-offload", &OffloadFlags::gso},
      {"generic-receive-offload", &OffloadFlags::gro},
      {"tx-checksumming", &OffloadFlags::tx_checksum},
      {"rx-checksumming", &OffloadFlags::rx_checksum},
  };
  for (std::string_view line : Lines(text)) {
    // Sub-features are indented with a tab; only the top-level lines are wanted.
    if (line.empty() || line[0] == '\t' || line[0] == ' ') continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = line.substr(0, colon);
    std::string_view value = Trim(line.substr(colon + 1));
    for (const auto& field : kFields) {
      if (name != field.name) continue;
      // "on", "off", "off [fixed]", "on [requested off]": the first word is the state.
      flags.*field.member = value.substr(0, 2) == "on";
    }
  }
  return flags;
}

Result<OffloadFlags> ReadOffloads(CommandRunner& runner, std::string_view netns,
                                  std::string_view device) {
  Argv argv;
  if (!netns.empty()) argv = {"ip", "netns", "exec", std::string(netns)};
  argv.insert(argv.end(), {"ethtool", "-k", std::string(device)});
  auto text = RunForOutput(runner, argv);
  if (!text) return tl::unexpected(text.error());
  return ParseEthtoolFeatures(*text);
}

}  // namespace nicbench::stand
