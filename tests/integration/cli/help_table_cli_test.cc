// `nicbench --help-table` and what is generated from it (tools/docgen): every option --help
// prints is in the table and in the command's man page, so the man pages cannot drift from the
// binary; the completion offers the same options.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/run_binary.h"
#include "support/text.h"

namespace nicbench::testing {
namespace {

std::string GeneratedDir() {
  const std::string nicbench = NicbenchPath();
  return nicbench.substr(0, nicbench.rfind('/') + 1) + "generated";
}

// The man page as plain text: "\-" is "-", font changes gone.
std::string ManText(const std::string& command) {
  std::string roff = testing::FileText(GeneratedDir() + "/man/nicbench-" + command + ".1");
  std::string out;
  for (size_t i = 0; i < roff.size(); ++i) {
    if (roff.compare(i, 2, "\\-") == 0) {
      out += '-';
      ++i;
    } else if (roff.compare(i, 3, "\\fB") == 0 || roff.compare(i, 3, "\\fR") == 0 ||
               roff.compare(i, 3, "\\fI") == 0) {
      i += 2;
    } else {
      out += roff[i];
    }
  }
  return out;
}

// Option names of CLI11's --help: lines "  -t,--time FLOAT  ..." (two spaces, then the names).
std::set<std::string> HelpOptions(const std::string& help) {
  std::set<std::string> names;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  -", 0) != 0) continue;
    std::string list = line.substr(2, line.find(' ', 2) - 2);
    std::istringstream parts(list);
    // CLI11 shows a flag's value when given without one as a suffix: `--timestamps{%c }`.
    for (std::string name; std::getline(parts, name, ',');)
      names.insert(name.substr(0, name.find('{')));
  }
  return names;
}

std::set<std::string> TableOptions(const nlohmann::json& table) {
  std::set<std::string> names;
  for (const auto& opt : table["options"]) {
    for (const auto& name : opt["names"]) names.insert(name.get<std::string>());
  }
  return names;
}

// `word` in `text` between spaces or quotes (a word list of the completion script).
bool HasWord(const std::string& text, const std::string& word) {
  const auto edge = [](char c) { return c == ' ' || c == '"'; };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if (at > 0 && edge(text[at - 1]) && end < text.size() && edge(text[end])) return true;
  }
  return false;
}

std::vector<nlohmann::json> HelpTable() {
  ProcessResult r = RunNicbench({"--help-table"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> lines;
  std::istringstream text(r.out);
  for (std::string line; std::getline(text, line);) {
    lines.push_back(nlohmann::json::parse(line, nullptr, false));
    EXPECT_FALSE(lines.back().is_discarded()) << line;
  }
  return lines;
}

std::string Name(const nlohmann::json& table) {
  std::string name = table["name"];
  return name.rfind("nicbench ", 0) == 0 ? name.substr(9) : name;
}

// `command` and `sub` (a subcommand, or "") agree: --help, the table, the man page.
void ExpectSameOptions(const std::string& command, const std::string& sub,
                       const nlohmann::json& table, const std::string& man) {
  std::vector<std::string> args = {command};
  if (!sub.empty()) args.push_back(sub);
  args.push_back("--help");
  ProcessResult help = RunNicbench(args);
  ASSERT_EQ(help.exit_code, 0) << command << " " << sub << ": " << help.err;
  const std::set<std::string> shown = HelpOptions(help.out);
  EXPECT_FALSE(shown.empty()) << help.out;
  EXPECT_EQ(shown, TableOptions(table)) << "nicbench " << command << " " << sub;
  for (const std::string& option : shown) {
    EXPECT_NE(man.find(option), std::string::npos)
        << option << " of nicbench " << command << " " << sub << " is not in its man page";
  }
}

TEST(HelpTable, EveryCommandIsListedOnceWithTtcpAndNicbench) {
  std::set<std::string> names;
  for (const auto& table : HelpTable()) EXPECT_TRUE(names.insert(Name(table)).second);
  for (const char* name : {"nicbench", "run", "serve", "inspect", "stand", "history", "show",
                           "compare", "matrix", "report", "disk", "ttcp"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
}

TEST(HelpTable, EveryOptionOfHelpIsInTheTableAndTheManPage) {
  int commands = 0;
  for (const auto& table : HelpTable()) {
    const std::string name = Name(table);
    if (name == "nicbench" || name == "ttcp") continue;
    ++commands;
    const std::string man = ManText(name);
    ASSERT_FALSE(man.empty()) << "no man page for " << name;
    ExpectSameOptions(name, "", table, man);
    for (const auto& sub : table["subcommands"]) ExpectSameOptions(name, Name(sub), sub, man);
  }
  EXPECT_GE(commands, 10);
}

TEST(HelpTable, IsNotAnOptionHelpShows) {
  ProcessResult help = RunNicbench({"run", "--help"});
  EXPECT_EQ(help.out.find("--help-table"), std::string::npos);
  ProcessResult bad = RunNicbench({"run", "--help-table", "127.0.0.1"});
  EXPECT_EQ(bad.exit_code, 2) << "only `COMMAND --help-table` alone prints the table";
}

TEST(HelpTable, CompletionOffersTheOptionsOfTheTable) {
  const std::string completion = testing::FileText(GeneratedDir() + "/completion/nicbench");
  ASSERT_NE(completion.find("complete -o default -F _nicbench nicbench"), std::string::npos);
  for (const auto& table : HelpTable()) {
    if (Name(table) != "run") continue;
    for (const std::string& option : TableOptions(table)) {
      EXPECT_TRUE(HasWord(completion, option)) << option;
    }
  }
}

TEST(HelpTable, ManPagesOfNicbenchAndTtcpExist) {
  EXPECT_NE(testing::FileText(GeneratedDir() + "/man/nicbench.1").find(".SH COMMANDS"),
            std::string::npos);
  EXPECT_NE(testing::FileText(GeneratedDir() + "/man/ttcp.1").find("\\-t"), std::string::npos);
}

}  // namespace
}  // namespace nicbench::testing
