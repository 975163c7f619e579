// A mesh definition (docs/fleet.md, "Mesh definitions"): from `mesh create NAME --hosts A,B,C
// [--every 1h] [--test 'RUN-OPTIONS'] [--both-directions]` or from a JSON file kept in version
// control (`--from mesh.json`), checked whole before anything is written, with errors that
// name the member. Internal to the cli layer; pure.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "store/fleet.h"

namespace nicbench::cli {

// What the command line says; empty strings are "not given".
struct MeshArgs {
  std::string name, hosts, every = "1h", test = "-t 10", from;
  bool both_directions = false;
};

// The mesh to create: hosts, the ordered pairs, its test's words and its period. The test is
// checked by MeshTest (fleet_options.h) and must be shorter than the period.
Result<store::MeshSpec> MeshFromArgs(const MeshArgs& args);

// The same from a definition document; `where` names it in errors ("mesh.json").
//   {"hosts": ["a", "b", ...]              every host, in the grid's order (or from the groups)
//    "groups": {"nas": ["a"], ...}          optional: named lists of hosts
//    "between": [["clients", "nas"], ...]   optional: only from each host of the first group
//                                           to each of the second (default: every pair)
//    "every": "1h", "test": "-t 10", "both_directions": false}
Result<store::MeshSpec> MeshFromJson(const std::string& name, const nlohmann::json& doc,
                                     const std::string& where);

}  // namespace nicbench::cli
