// A mesh definition (docs/fleet.md, "Mesh definitions"): from `mesh create NAME --hosts A,B,C
// [--every 1h] [--test 'RUN-OPTIONS'] [--both-directions]` or from a JSON file kept in version
// control (`--from mesh.json`), checked whole before anything is written, with errors that
// name the member. Internal to the cli layer; pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "engine/client.h"
#include "store/fleet.h"

namespace nicbench::cli {

// What the command line says; empty strings are "not given".
struct MeshArgs {
  std::string name, hosts, every = "1h", test = "-t 10", from;
  bool both_directions = false;
};

// A mesh's period: 1 s .. 365 d.
inline constexpr int64_t kMinMeshEveryMs = 1000;
inline constexpr int64_t kMaxMeshEveryMs = int64_t{365} * 86400 * 1000;

// The hosts of --hosts: "a,b,c" (white space separates too).
std::vector<std::string> SplitHosts(const std::string& text);

// A mesh's hosts: each 1 to 64 letters, digits, '_', '.' or '-', none twice, at least two.
// `where` starts every error ("--hosts: ", "mesh.json: ").
Status CheckMeshHosts(const std::string& where, const std::vector<std::string>& hosts);

// A mesh's test alone, as MeshTest (fleet_options.h) checks it against a peer that is never
// resolved; `what` names it in errors ("--test", "mesh.json: test").
Result<engine::ClientConfig> CheckMeshTest(std::string_view what,
                                           const std::vector<std::string>& words);

// The mesh to create from `spec`, whose name, hosts, test and period create's rows set
// (cli/option_tables_fleet.h): its ordered pairs, and its definition as typed in `args`. The test
// must be shorter than the period.
Result<store::MeshSpec> MeshFromArgs(const MeshArgs& args, store::MeshSpec spec);

// The same from a definition document; `where` names it in errors ("mesh.json").
//   {"hosts": ["a", "b", ...]              every host, in the grid's order (or from the groups)
//    "groups": {"nas": ["a"], ...}          optional: named lists of hosts
//    "between": [["clients", "nas"], ...]   optional: only from each host of the first group
//                                           to each of the second (default: every pair)
//    "every": "1h", "test": "-t 10", "both_directions": false}
Result<store::MeshSpec> MeshFromJson(const std::string& name, const nlohmann::json& doc,
                                     const std::string& where);

}  // namespace nicbench::cli
