// The pure half of `nicbench matrix`: parsing --vary, deciding what applies each name (nicbench
// itself, the stand, or the user's --setup/--teardown), the variants (the cross product), the
// interleaved schedule from a seed, and the argv and labels of each run. No I/O; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "store/store.h"

namespace nicbench::cli {

// --vary NAME=V1,V2,...
struct Vary {
  std::string name;
  std::vector<std::string> values;
};
Result<Vary> ParseVary(std::string_view text);

// What applies a name's value to a run.
enum class VaryKind {
  kDirection,  // direction=forward,reverse,bidir: -R / --bidir
  kStreams,    // streams=N: -P N
  kProto,      // proto=tcp,udp: -u
  kRunOption,  // a `run` option taking a value (-w, --window, window, -C ...): OPTION VALUE
  kRunFlag,    // a `run` flag (-N, -Z, --skip-rx-copy ...) with on|off
  kStand,      // tso, gso, gro (on|off), mtu, profile, queue: the stand's own toggles
  kSetup,      // only the user's --setup/--teardown commands, as {NAME}
};
struct VaryRole {
  VaryKind kind = VaryKind::kSetup;
  std::string option;  // kRunOption/kRunFlag: the long spelling, "--window"
};

// Most variants an experiment may have (the product of the --vary value counts): 10,000 runs of
// 10 s are more than a day per round. Classify refuses more, so CrossProduct never builds them.
inline constexpr size_t kMaxVariants = 10000;
// The number of variants of `varies`, saturating at kMaxVariants + 1.
size_t VariantCount(const std::vector<Vary>& varies);

// The role of each --vary, checking its values and that they make at most kMaxVariants.
// `stand_link`: the HOST is a stand host, so the stand toggles apply. A name nothing knows and no
// command uses is an error naming it.
Result<std::vector<VaryRole>> Classify(const std::vector<Vary>& varies, bool stand_link,
                                       const std::string& setup, const std::string& teardown);

// True when a --vary name is one of the stand's toggles.
bool IsStandToggle(std::string_view name);

// One variant: a value for each --vary, in --vary order.
using Variant = std::vector<std::pair<std::string, std::string>>;
// The cross product, the first --vary varying slowest.
std::vector<Variant> CrossProduct(const std::vector<Vary>& varies);
// "tso=on direction=forward".
std::string VariantName(const Variant& variant);
// The label key of a --vary name: the name without leading dashes ("-w" -> "w").
std::string LabelKey(std::string_view name);

// Rounds x variants: every round runs every variant once, in an order shuffled (Fisher-Yates on
// std::mt19937_64, whose output the standard fixes) from `seed`, so the same seed gives the
// same schedule everywhere. Variant indices are 0-based.
std::vector<std::vector<int>> Schedule(int variants, int repeat, uint64_t seed);

// `command` with every {NAME} (and {KEY}) replaced by the variant's value.
std::string Substitute(const std::string& command, const Variant& variant);

// The `nicbench run` arguments (after "run") for one run of `variant`.
std::vector<std::string> RunArguments(const std::string& host,
                                      const std::vector<std::string>& run_options,
                                      const Variant& variant, const std::vector<VaryRole>& roles);

// Labels of a run: experiment=ID, round=R (1-based), variant=I (1-based) and KEY=VALUE for each
// --vary.
store::Labels RunLabels(int64_t experiment, int round, int variant_index, const Variant& variant);

// What an experiment stores as its definition, and reads back to resume.
struct MatrixDefinition {
  std::string host;
  std::vector<Vary> varies;
  int repeat = 0;
  uint64_t seed = 0;
  std::string setup, teardown;
  std::vector<std::string> run_options;
  std::vector<std::vector<int>> schedule;
};
nlohmann::json DefinitionToJson(const MatrixDefinition& d);
// Reads a stored definition back and checks it as `nicbench matrix` checked its arguments: each
// vary as ParseVary reads it, 1..1000 rounds, at most kMaxVariants variants, and every scheduled
// variant index within them (the store is shared: its rows are outside bytes).
Result<MatrixDefinition> DefinitionFromJson(const nlohmann::json& j);

}  // namespace nicbench::cli
