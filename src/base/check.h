// NB_CHECK: aborts on a broken invariant of our own code, with file:line. Not for failures
// caused by the world: those are Result values (base/result.h).
#pragma once

namespace nicbench::detail {
[[noreturn]] void CheckFailed(const char* expr, const char* file, int line);
}  // namespace nicbench::detail

#define NB_CHECK(cond) \
  ((cond) ? static_cast<void>(0) : ::nicbench::detail::CheckFailed(#cond, __FILE__, __LINE__))
