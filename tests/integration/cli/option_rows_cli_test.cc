// The option tables (cli/option_tables.h) against the binary: every option `--help-table` lists
// (what --help, the man pages and the completion show) is a row of its command's table and every
// row is listed; every row that has a bad value is refused with exit code 2 before anything runs,
// in a message that names the option (a positional's: that quotes the value).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/option_tables.h"
#include "support/run_binary.h"

namespace nicbench::testing {
namespace {

// A command line around the option under test: `before` FLAG BAD `after`.
struct RowsCommand {
  std::string rows;  // cli::CommandRows' name
  std::vector<std::string> before;
  std::vector<std::string> after;
};

// Port 1: nobody listens there, so a value the command failed to refuse ends in a quick
// connection failure (exit 1), not a test. A store, a capture or a file under a directory that
// does not exist, an interface that does not exist: likewise a quick failure, nothing written.
const std::vector<RowsCommand>& RowsCommands() {
  static const std::string kNoStore = "/nonexistent/nicbench-rows/results.db";
  static const std::vector<RowsCommand> commands = {
      {"run", {"run", "127.0.0.1", "-p", "1"}, {}},
      {"serve", {"serve", "-p", "0", "--once"}, {}},
      {"monitor", {"monitor", "127.0.0.1", "-p", "1"}, {}},
      {"stand up", {"stand", "up"}, {}},
      {"stand down", {"stand", "down"}, {}},
      {"stand exec", {"stand", "exec"}, {"h1", "--", "true"}},
      {"collect", {"collect", "-i", "nbrows0", "-o", "/nonexistent/nicbench-rows"}, {}},
      {"compare", {"compare", "--store", kNoStore}, {"2"}},
      {"disk", {"disk", "/nonexistent/nicbench-rows/file"}, {}},
      {"history", {"history", "--store", kNoStore}, {}},
      {"show", {"show", "--store", kNoStore}, {}},
      {"inspect", {"inspect", "-i", "nbrows0"}, {}},
      {"matrix", {"matrix", "127.0.0.1", "--store", kNoStore}, {}},
      {"report", {"report", "--store", kNoStore, "-o", "/nonexistent/nicbench-rows/r.html"}, {}},
      // The fleet's: no database given, and $NICBENCH_STORE is the tests' SQLite file, so a value
      // the command failed to refuse ends in "the fleet needs a PostgreSQL URL", naming no row.
      {"agent", {"agent"}, {}},
      {"mesh", {"mesh"}, {"list"}},
      {"mesh create", {"mesh", "create"}, {"m"}},
      {"mesh list", {"mesh", "list"}, {}},
      {"mesh pause", {"mesh", "pause"}, {"m"}},
      {"mesh resume", {"mesh", "resume"}, {"m"}},
      {"mesh delete", {"mesh", "delete"}, {"m"}},
      {"mesh grid", {"mesh", "grid"}, {"m"}},
      {"store migrate", {"store", "migrate"}, {}},
  };
  return commands;
}

bool IsPositional(const std::string& names) { return names.rfind('-', 0) != 0; }

// An option's names as one sorted, comma-joined key; a positional's is its name. CLI11's
// `--timestamps{%c }` (a flag's value when given bare) is `--timestamps`.
std::string KeyOfNames(std::vector<std::string> names) {
  for (std::string& name : names) name = name.substr(0, name.find('{'));
  std::sort(names.begin(), names.end());
  std::string key;
  for (const std::string& name : names) key += (key.empty() ? "" : ",") + name;
  return key;
}

std::vector<std::string> SplitNames(const std::string& names) {
  std::vector<std::string> out;
  std::istringstream parts(names);
  for (std::string name; std::getline(parts, name, ',');) out.push_back(name);
  return out;
}

// The options of `rows_name`'s App ("run", or a subcommand's: "stand up") as the binary lists
// them (-h,--help left out).
std::set<std::string> ListedOptions(const std::string& rows_name) {
  const size_t space = rows_name.find(' ');
  const std::string command = rows_name.substr(0, space);
  ProcessResult r = RunNicbench({command, "--help-table"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json table = nlohmann::json::parse(r.out);
  if (space != std::string::npos) {
    nlohmann::json sub_table;
    for (const auto& sub : table["subcommands"]) {
      if (command + " " + sub["name"].get<std::string>() == rows_name) sub_table = sub;
    }
    table = std::move(sub_table);
  }
  std::set<std::string> keys;
  for (const auto& opt : table["options"]) {
    const std::string key = opt["names"].empty()
                                ? opt["positional"].get<std::string>()
                                : KeyOfNames(opt["names"].get<std::vector<std::string>>());
    if (key != "--help,-h") keys.insert(key);
  }
  return keys;
}

TEST(OptionRowsCli, EveryListedOptionIsARowAndEveryRowIsListed) {
  for (const RowsCommand& command : RowsCommands()) {
    std::set<std::string> rows;
    for (const cli::RowView& row : cli::CommandRows(command.rows)) {
      EXPECT_TRUE(rows.insert(KeyOfNames(SplitNames(row.names))).second)
          << command.rows << ": " << row.names << " is two rows";
    }
    EXPECT_FALSE(rows.empty()) << command.rows;
    EXPECT_EQ(ListedOptions(command.rows), rows) << command.rows;
  }
}

// The row's names that a message may use ("-p" or "--port").
bool NamesTheOption(const std::string& message, const std::string& names) {
  for (const std::string& name : SplitNames(names)) {
    if (message.find(name.substr(0, name.find('{'))) != std::string::npos) return true;
  }
  return false;
}

TEST(OptionRowsCli, ABadValueOfEveryRowIsAUsageErrorNamingTheOption) {
  int tried = 0;
  for (const RowsCommand& command : RowsCommands()) {
    for (const cli::RowView& row : cli::CommandRows(command.rows)) {
      if (row.bad.empty()) continue;
      const bool positional = IsPositional(row.names);
      std::vector<std::string> args = command.before;
      args.push_back(positional ? row.bad : SplitNames(row.names).back() + "=" + row.bad);
      args.insert(args.end(), command.after.begin(), command.after.end());
      ProcessResult r = RunNicbench(args);
      ++tried;
      EXPECT_EQ(r.exit_code, 2) << command.rows << " " << row.names << " " << row.bad << ": "
                                << r.err;
      EXPECT_TRUE(positional ? r.err.find("'" + row.bad + "'") != std::string::npos
                             : NamesTheOption(r.err, row.names))
          << command.rows << " " << row.names << " " << row.bad << ": " << r.err;
    }
  }
  EXPECT_GT(tried, 70);
}

}  // namespace
}  // namespace nicbench::testing
