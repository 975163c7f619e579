// The option table of a subcommand as JSON, read from the CLI11 App that parses its argv: what
// `nicbench --help-table` prints (one line per command), and what the man pages and the bash
// completion are generated from at build time (tools/docgen), so neither can drift from --help.
// Shape (docs/packaging.md): {"name", "description", "footer", "options": [{"names": ["-t",
// "--time"], "positional": "", "value": "FLOAT", "default": "", "required": false,
// "repeatable": false, "description"}], "subcommands": [...]}. Options --help hides (group "")
// are left out. Pure; thread-compatible (reads the App).
#pragma once

#include <optional>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace nicbench::cli {

// The argument that asks a command for its table instead of running it. Not an option of any
// App (so --help does not list it): ParseArgs looks for it before CLI11 parses.
inline constexpr const char kHelpTableArg[] = "--help-table";

nlohmann::json OptionTable(const CLI::App& app);

// When argv is exactly {COMMAND, "--help-table"}: prints OptionTable(app) as one line on stdout
// and returns 0; nullopt otherwise.
std::optional<int> PrintOptionTableIfAsked(const CLI::App& app, int argc, char** argv);

}  // namespace nicbench::cli
