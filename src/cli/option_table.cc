#include "cli/option_table.h"

#include <cstdio>
#include <string_view>

namespace nicbench::cli {
namespace {

nlohmann::json OptionJson(const CLI::Option& opt) {
  nlohmann::json names = nlohmann::json::array();
  for (const std::string& s : opt.get_snames()) names.push_back("-" + s);
  for (const std::string& l : opt.get_lnames()) names.push_back("--" + l);
  const bool takes_value = opt.get_type_size() != 0;
  return {
      {"names", names},
      {"positional", opt.nonpositional() ? std::string() : opt.get_name(true, false)},
      {"value", takes_value
                    ? (opt.get_option_text().empty() ? opt.get_type_name() : opt.get_option_text())
                    : std::string()},
      {"default", opt.get_default_str()},
      {"required", opt.get_required()},
      {"repeatable", opt.get_expected_max() >= CLI::detail::expected_max_vector_size},
      {"description", opt.get_description()},
  };
}

}  // namespace

nlohmann::json OptionTable(const CLI::App& app) {
  nlohmann::json options = nlohmann::json::array();
  for (const CLI::Option* opt : app.get_options()) {
    if (!opt->get_group().empty()) options.push_back(OptionJson(*opt));
  }
  nlohmann::json subcommands = nlohmann::json::array();
  for (const CLI::App* sub : app.get_subcommands({})) subcommands.push_back(OptionTable(*sub));
  return {{"name", app.get_name()},
          {"description", app.get_description()},
          {"footer", app.get_footer()},
          {"options", options},
          {"subcommands", subcommands}};
}

std::optional<int> PrintOptionTableIfAsked(const CLI::App& app, int argc, char** argv) {
  if (argc != 2 || std::string_view(argv[1]) != kHelpTableArg) return std::nullopt;
  std::puts(OptionTable(app).dump().c_str());
  return 0;
}

}  // namespace nicbench::cli
