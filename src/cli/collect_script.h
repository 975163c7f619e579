// The capture script of `nicbench collect` (src/cli/collect.sh), compiled into the binary.
#pragma once

#include <string_view>

namespace nicbench::cli {

// The whole text of collect.sh, byte for byte.
std::string_view CollectScript();

}  // namespace nicbench::cli
