// The request/response options of `nicbench run` (docs/rr.md): --rr, --crr, --rr-burst,
// --rr-timeout, and what -l and -n mean in those tests (-l REQ[,RESP] message sizes, -n N
// transactions). Parsed into TestSpec::rr; the ranges are record::Validate's.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "record/test_spec.h"

namespace nicbench::cli {

struct RrArgs {
  bool rr = false, crr = false;
  std::string burst, timeout, spin, rate;
};

void AddRrOptions(CLI::App& app, RrArgs& a);

// Fills spec.rr when --rr or --crr was given. `length` (-l) and `count` (-n) are taken here
// and cleared, so the bulk parsing does not read them as a block size and a byte count; `-k`
// also counts transactions. Errors: usage mistakes, exit 2.
Status ApplyRrArgs(const RrArgs& a, std::string& length, std::string& count,
                   record::TestSpec& spec);

}  // namespace nicbench::cli
