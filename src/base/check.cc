#include "base/check.h"

#include <cstdio>
#include <cstdlib>

namespace nicbench::detail {

void CheckFailed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "nicbench: internal error: check failed: %s at %s:%d\n", expr, file, line);
  std::abort();
}

}  // namespace nicbench::detail
