// Checking a `nicbench run` argument list that did not come from the user's own argv: a matrix
// experiment's stored definition (read back from a store that others may write) makes one per
// run. Internal to the cli layer; thread-safe (parses into local values only).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/client.h"

namespace nicbench::cli {

// Why `args` (what follows "run", the host included) cannot be run, or nullopt: whatever `run`
// itself refuses (an unknown option, a bad value, anything record::Validate refuses), and any
// option naming a file the run would read or write (-F, --html, --logfile, --store,
// --no-store): a definition others could have written never chooses paths. Nothing is opened,
// created or redirected by the check.
std::optional<std::string> StoredRunArgumentsProblem(const std::vector<std::string>& args);

// The tests `nicbench run ARGS...` would run (`monitor --test`, whose tests are run's tests):
// one, or forward then reverse with --both-directions. `args` holds the host (and -p) first.
// Refused beyond what `run` refuses: options naming a file (as above), loopback, --under-load
// and the output options (-J, --json-stream): the monitor writes its own output. The error is
// run's message.
Result<std::vector<engine::ClientConfig>> RunArgumentsToTests(const std::vector<std::string>& args);

}  // namespace nicbench::cli
