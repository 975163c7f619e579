// The process's descriptor limit. Every stream is a socket at each end, so `-P 1000` needs over
// a thousand descriptors per end, more than the soft limit many systems start with (1024).
// Free functions; they change process-wide state, so call them from main (or a test's set-up)
// before threads start.
#pragma once

#include <cstdint>

#include "base/result.h"

namespace nicbench::net {

// Raises the soft RLIMIT_NOFILE to the hard limit (an unprivileged process may do that) and
// returns the soft limit now in force. Never lowers it.
Result<uint64_t> RaiseDescriptorLimit();

// The soft RLIMIT_NOFILE now (2^20 when unlimited).
uint64_t DescriptorLimit();

}  // namespace nicbench::net
