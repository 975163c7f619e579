// Result<T>: the value type for operations that can fail because of the world (a peer reset,
// ENOENT under /sys, EPERM without CAP_NET_ADMIN). Our own bugs go through NB_CHECK instead.
// Thread safety: plain values; safe to move between threads.
#pragma once

#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace nicbench {

// What went wrong: a message for people and, when the failure came from a syscall, its errno
// captured at the call (never read later from the global).
struct Error {
  std::string message;
  int sys_errno = 0;

  // "connect: Connection refused" style text: message, then strerror when errno is set.
  std::string ToString() const;
};

template <typename T>
using Result = tl::expected<T, Error>;

// The failure side of a Result; `return Fail("bad length");`
inline tl::unexpected<Error> Fail(std::string message, int sys_errno = 0) {
  return tl::unexpected<Error>(Error{std::move(message), sys_errno});
}

// Fail with the current errno of a syscall that just returned -1. Call it right away: the
// errno is captured here, at the boundary.
tl::unexpected<Error> FailErrno(std::string what);

// Result<void> needs a value to return on success.
using Status = Result<void>;
inline Status Ok() { return {}; }

}  // namespace nicbench
