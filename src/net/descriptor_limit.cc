#include "net/descriptor_limit.h"

#include <sys/resource.h>

namespace nicbench::net {

Result<uint64_t> RaiseDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return FailErrno("getrlimit(RLIMIT_NOFILE)");
  if (limit.rlim_cur != limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return FailErrno("setrlimit(RLIMIT_NOFILE)");
  }
  return DescriptorLimit();
}

uint64_t DescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 1u << 20;
  return limit.rlim_cur;
}

}  // namespace nicbench::net
