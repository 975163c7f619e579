// One /proc or /sys text parser (probes/proc_parsers.h), chosen at build time by
// NICBENCH_FUZZ_PARSER (tests/fuzz/CMakeLists.txt builds one target per parser, so that each has
// its own corpus of real files). The parsers read files the kernel writes, but also the captured
// trees a user sends (`--root DIR`), which can hold anything.
#include "fuzz_input.h"
#include "probes/proc_parsers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = nicbench::probes::NICBENCH_FUZZ_PARSER(nicbench::fuzz::Text(data, size));
  if (!parsed) NICBENCH_FUZZ_CHECK(!parsed.error().message.empty());
  return 0;
}
