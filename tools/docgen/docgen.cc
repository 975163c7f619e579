// docgen: the man pages and the bash completion of nicbench, generated at build time from
// `nicbench --help-table` (cli/option_table.h), the same CLI11 definitions --help prints, so
// neither can drift from the binary they ship with.
//
// Usage: docgen TABLE.jsonl OUTDIR
// Writes OUTDIR/man/nicbench.1, OUTDIR/man/nicbench-COMMAND.1 for each command,
// OUTDIR/man/ttcp.1 and OUTDIR/completion/nicbench. Exit 0, or 1 with a message on stderr.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

// "nicbench stand" (stand's App is named so) and "run" both name a command: "stand", "run".
std::string CommandName(const json& table) {
  std::string name = table.at("name").get<std::string>();
  const std::string prefix = "nicbench ";
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

// roff text: backslashes and hyphens escaped, a line starting with '.' or '\'' kept as text.
std::string Roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

// The one-line summary of a command: its App description without the "nicbench run: " prefix.
std::string Summary(const json& table) {
  std::string d = table.at("description").get<std::string>();
  const size_t colon = d.find(": ");
  if (d.rfind("nicbench", 0) == 0 && colon != std::string::npos) d = d.substr(colon + 2);
  return d.substr(0, d.find('\n'));
}

void OptionEntry(std::ostream& out, const json& opt) {
  out << ".TP\n";
  std::string head;
  if (!opt["positional"].get<std::string>().empty()) {
    head = "\\fI" + Roff(opt["positional"].get<std::string>()) + "\\fR";
  } else {
    for (const auto& name : opt["names"]) {
      head +=
          (head.empty() ? "" : ", ") + std::string("\\fB") + Roff(name.get<std::string>()) + "\\fR";
    }
    if (!opt["value"].get<std::string>().empty()) {
      head += " \\fI" + Roff(opt["value"].get<std::string>()) + "\\fR";
    }
  }
  if (opt["repeatable"].get<bool>()) head += " ...";
  out << head << "\n";
  std::string text = opt["description"].get<std::string>();
  if (!opt["default"].get<std::string>().empty()) {
    text += " (default: " + opt["default"].get<std::string>() + ")";
  }
  if (opt["required"].get<bool>()) text += " Required.";
  out << Roff(text) << "\n";
}

void OptionsSection(std::ostream& out, const json& table, const std::string& title) {
  out << ".SH " << title << "\n";
  for (const auto& opt : table["options"]) OptionEntry(out, opt);
  for (const auto& sub : table["subcommands"]) {
    out << ".SS \"" << Roff(CommandName(table) + " " + CommandName(sub)) << "\"\n"
        << Roff(sub["description"].get<std::string>()) << "\n";
    for (const auto& opt : sub["options"]) OptionEntry(out, opt);
  }
}

constexpr const char kExitStatus[] =
    ".SH EXIT STATUS\n"
    ".TP\n0\nsuccess\n.TP\n1\nthe test failed\n.TP\n2\nusage error: a bad option or value\n"
    ".TP\n3\nenvironment: the host, the network or the store refused\n"
    ".TP\n130\ninterrupted\n";

void Preformatted(std::ostream& out, const std::string& text) {
  out << ".nf\n" << Roff(text) << (text.empty() || text.back() == '\n' ? "" : "\n") << ".fi\n";
}

std::string Header(const std::string& page, const std::string& version) {
  std::string upper;
  for (char c : page) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return ".TH " + Roff(upper) + " 1 \"\" \"nicbench " + version + "\" \"User Commands\"\n";
}

void CommandPage(std::ostream& out, const json& table, const std::string& version) {
  const std::string cmd = CommandName(table);
  out << Header("nicbench-" + cmd, version) << ".SH NAME\nnicbench\\-" << Roff(cmd) << " \\- "
      << Roff(Summary(table)) << "\n.SH SYNOPSIS\n.B nicbench " << Roff(cmd) << "\n"
      << (table["subcommands"].empty() ? "" : "\\fISUBCOMMAND\\fR ") << "[\\fIOPTIONS\\fR]";
  for (const auto& opt : table["options"]) {
    if (!opt["positional"].get<std::string>().empty()) {
      out << " [\\fI" << Roff(opt["positional"].get<std::string>()) << "\\fR]";
    }
  }
  out << "\n.SH DESCRIPTION\n" << Roff(Summary(table)) << "\n";
  if (!table["footer"].get<std::string>().empty())
    Preformatted(out, table["footer"].get<std::string>());
  OptionsSection(out, table, "OPTIONS");
  out << kExitStatus << ".SH SEE ALSO\n\\fBnicbench\\fR(1)\n";
}

void MainPage(std::ostream& out, const json& main, const std::vector<json>& commands,
              const std::string& version) {
  out << Header("nicbench", version)
      << ".SH NAME\nnicbench \\- network throughput test and diagnosis\n"
      << ".SH SYNOPSIS\n.B nicbench\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n.SH DESCRIPTION\n";
  Preformatted(out, main["usage"].get<std::string>());
  out << ".SH COMMANDS\n";
  for (const json& c : commands) {
    out << ".TP\n\\fBnicbench\\-" << Roff(CommandName(c)) << "\\fR(1)\n"
        << Roff(Summary(c)) << "\n";
  }
  out << ".TP\n\\fBttcp\\fR(1)\nclassic ttcp\n" << kExitStatus << ".SH SEE ALSO\n";
  for (const json& c : commands) out << "\\fBnicbench\\-" << Roff(CommandName(c)) << "\\fR(1), ";
  out << "\\fBttcp\\fR(1), \\fBiperf3\\fR(1)\n";
}

void TtcpPage(std::ostream& out, const json& ttcp, const std::string& version) {
  out << Header("ttcp", version)
      << ".SH NAME\nttcp \\- test TCP and UDP performance (classic ttcp, SGI 1.12)\n"
      << ".SH SYNOPSIS\n.B ttcp\n\\-t [\\fIOPTIONS\\fR] \\fIhost\\fR\n.br\n.B ttcp\n"
      << "\\-r [\\fIOPTIONS\\fR]\n.SH DESCRIPTION\n"
      << "nicbench invoked under the name ttcp (also \\fBnicbench ttcp\\fR) takes classic "
         "ttcp's command line and prints its output.\n.SH OPTIONS\n";
  Preformatted(out, ttcp["usage"].get<std::string>());
  out << ".SH EXIT STATUS\n0 on success, 1 on a usage error or a failed transfer, as the "
         "original.\n.SH SEE ALSO\n\\fBnicbench\\fR(1)\n";
}

// Every spelling of a command's options, space-separated.
std::string OptionWords(const json& table) {
  std::string words;
  for (const auto& opt : table["options"]) {
    for (const auto& name : opt["names"])
      words += (words.empty() ? "" : " ") + name.get<std::string>();
  }
  return words;
}

// Options that take a value, as a bash case pattern ("-t|--time|..."): after one of them the
// next word is a value, not an option.
std::string ValueOptions(const std::vector<json>& commands) {
  std::string pattern;
  for (const json& c : commands) {
    std::vector<json> tables = {c};
    for (const auto& sub : c["subcommands"]) tables.push_back(sub);
    for (const json& t : tables) {
      for (const auto& opt : t["options"]) {
        if (opt["value"].get<std::string>().empty()) continue;
        for (const auto& name : opt["names"]) pattern += "|" + name.get<std::string>();
      }
    }
  }
  return pattern.empty() ? "--never" : pattern.substr(1);
}

void Completion(std::ostream& out, const std::vector<json>& commands) {
  out << "# bash completion for nicbench and ttcp. Generated by tools/docgen from\n"
         "# `nicbench --help-table`; do not edit.\n"
         "_nicbench_runs() {\n"
         "  # Stored run ids and labels (KEY=VALUE), for show and compare selectors.\n"
         "  nicbench history --csv --last 50 2>/dev/null | _nicbench_csv_words\n"
         "}\n"
         "_nicbench_csv_words() {\n"
         "  local line id labels\n"
         "  read -r line || return 0\n"
         "  while IFS=, read -r id _; do\n"
         "    [[ $id =~ ^[0-9]+$ ]] && printf '%s\\n' \"$id\"\n"
         "  done\n"
         "}\n"
         "_nicbench() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
         "  local words=\"\" command=${COMP_WORDS[1]}\n"
         "  if ((COMP_CWORD == 1)); then\n    words=\"";
  for (const json& c : commands) out << CommandName(c) << " ";
  out << "ttcp --help --version\"\n"
         "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n    return\n  fi\n"
         "  case $prev in\n    "
      << ValueOptions(commands)
      << ")\n      COMPREPLY=($(compgen -f -- \"$cur\"))\n      return ;;\n  esac\n"
         "  case $command in\n";
  for (const json& c : commands) {
    out << "    " << CommandName(c) << ")\n";
    if (!c["subcommands"].empty()) {
      out << "      if ((COMP_CWORD == 2)); then\n        words=\"";
      for (const auto& sub : c["subcommands"]) out << CommandName(sub) << " ";
      out << "--help\"\n      else\n        case ${COMP_WORDS[2]} in\n";
      for (const auto& sub : c["subcommands"]) {
        out << "          " << CommandName(sub) << ") words=\"" << OptionWords(sub) << "\" ;;\n";
      }
      out << "        esac\n      fi ;;\n";
      continue;
    }
    out << "      words=\"" << OptionWords(c) << "\"\n";
    if (CommandName(c) == "show" || CommandName(c) == "compare" || CommandName(c) == "report") {
      out << "      [[ $cur != -* ]] && words=\"$(_nicbench_runs) last:5 label: id: "
             "experiment:\"\n";
    }
    out << "      ;;\n";
  }
  out << "  esac\n  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\n"
         "complete -o default -F _nicbench nicbench\n";
}

bool Write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  return static_cast<bool>(file);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: docgen TABLE.jsonl OUTDIR\n";
    return 1;
  }
  std::ifstream in(argv[1]);
  json main_table, ttcp;
  std::vector<json> commands;
  for (std::string line; std::getline(in, line);) {
    json t = json::parse(line, nullptr, false);
    if (t.is_discarded() || !t.contains("name")) {
      std::cerr << "docgen: " << argv[1] << ": not a --help-table line: " << line << "\n";
      return 1;
    }
    const std::string name = t["name"];
    if (name == "nicbench") {
      main_table = t;
    } else if (name == "ttcp") {
      ttcp = t;
    } else {
      commands.push_back(t);
    }
  }
  if (main_table.is_null() || ttcp.is_null() || commands.empty()) {
    std::cerr << "docgen: " << argv[1] << ": expected nicbench, its commands and ttcp\n";
    return 1;
  }
  const std::filesystem::path out = argv[2];
  std::filesystem::create_directories(out / "man");
  std::filesystem::create_directories(out / "completion");
  const std::string version = main_table["version"];
  bool ok = true;
  for (const json& c : commands) {
    std::ostringstream page;
    CommandPage(page, c, version);
    ok &= Write(out / "man" / ("nicbench-" + CommandName(c) + ".1"), page.str());
  }
  std::ostringstream page, ttcp_page, completion;
  MainPage(page, main_table, commands, version);
  TtcpPage(ttcp_page, ttcp, version);
  Completion(completion, commands);
  ok &= Write(out / "man" / "nicbench.1", page.str());
  ok &= Write(out / "man" / "ttcp.1", ttcp_page.str());
  ok &= Write(out / "completion" / "nicbench", completion.str());
  if (!ok) std::cerr << "docgen: cannot write under " << out << "\n";
  return ok ? 0 : 1;
}
