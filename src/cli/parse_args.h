// The CLI11 parse step every subcommand shares: --help prints the help and ends with 0, a bad
// option ends with the usage exit code after one line "nicbench NAME: <what> (see --help)".
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace nicbench::cli {

// Parses argv into `app`. Returns nullopt when the command should go on, else its exit code.
// `report` prints the usage line (to stderr, or as a JSON error document in -J mode).
std::optional<int> ParseArgs(CLI::App& app, int argc, char** argv,
                             const std::function<void(const std::string&)>& report);

}  // namespace nicbench::cli
