#include <cstdio>

#include "base/exit_code.h"
#include "cli/commands.h"

namespace nicbench::cli {

int RunServeCommand(int /*argc*/, char** /*argv*/) {
  std::fputs("nicbench serve: not built yet\n", stderr);
  return ToInt(ExitCode::kEnvironment);
}

}  // namespace nicbench::cli
