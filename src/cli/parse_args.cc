#include "cli/parse_args.h"

#include "base/exit_code.h"
#include "cli/option_table.h"

namespace nicbench::cli {

std::optional<int> ParseArgs(CLI::App& app, int argc, char** argv,
                             const std::function<void(const std::string&)>& report) {
  if (auto code = PrintOptionTableIfAsked(app, argc, argv)) return code;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    report("nicbench " + app.get_name() + ": " + e.what() + " (see --help)");
    return ToInt(ExitCode::kUsage);
  }
  return std::nullopt;
}

}  // namespace nicbench::cli
