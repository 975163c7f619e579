// run --under-load (docs/latency.md): the options of the probes beside the test.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "job/under_load.h"
#include "record/test_spec.h"

namespace nicbench::cli {

struct UnderLoadArgs {
  bool on = false;
  std::string rate, idle;
};

void AddUnderLoadOptions(CLI::App& app, UnderLoadArgs& a);

// The probes' options when --under-load was given (nullopt without it); an error for a value
// out of range, an option without --under-load, or a test the probes cannot run beside (by
// bytes or blocks, request/response, an idle phase longer than the test).
Result<std::optional<job::ProbeOptions>> ApplyUnderLoadArgs(const UnderLoadArgs& a,
                                                            const record::TestSpec& spec);

}  // namespace nicbench::cli
