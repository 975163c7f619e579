// The selectors of `compare` and `report` (cli/selector.h): typed by a user, but also passed on
// by scripts from stored labels, so any text must give a selector or an error that says why.
#include "cli/selector.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto selector = nicbench::cli::ParseSelector(nicbench::fuzz::Text(data, size));
  if (!selector) {
    NICBENCH_FUZZ_CHECK(!selector.error().message.empty());
  } else {
    NICBENCH_FUZZ_CHECK(selector->text == nicbench::fuzz::Text(data, size));
  }
  return 0;
}
