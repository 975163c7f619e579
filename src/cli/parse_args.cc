#include "cli/parse_args.h"

#include "base/exit_code.h"

namespace nicbench::cli {

std::optional<int> ParseArgs(CLI::App& app, int argc, char** argv,
                             const std::function<void(const std::string&)>& report) {
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
