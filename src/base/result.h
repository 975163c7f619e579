// Result<T>: the value type for operations that can fail because of the world (a peer reset,
// ENOENT under /sys, EPERM without CAP_NET_ADMIN). Our own bugs go through NB_CHECK instead.
// Thread safety: plain values; safe to move between threads.
#pragma once

#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace nicbench {

// What kind of failure it is, for a caller that acts on it (an exit code, what to tell the
// peer) rather than on the words. Most errors are kOther; a layer sets a kind where its callers
// need one (the client's conversation sets one for every failure it returns).
enum class ErrorKind {
  kOther,        // nothing more specific
  kConnect,      // the peer could not be reached (resolve, connect)
  kBusy,         // the peer is busy with another test (iperf3's ACCESS_DENIED)
  kPeerError,    // the peer reported an error of its own (iperf3's SERVER_ERROR)
  kProtocol,     // the conversation broke: EOF, a timeout, a message out of place
  kData,         // a data stream or the data path failed
  kInterrupted,  // the user stopped it (SIGINT, SIGTERM)
  kPeerCannot,   // the peer cannot run this kind of test (a stock iperf3 asked for --rr)
};

// What went wrong: a message for people and, when the failure came from a syscall, its errno
// captured at the call (never read later from the global).
struct Error {
  std::string message;
  int sys_errno = 0;
  ErrorKind kind = ErrorKind::kOther;

  // "connect: Connection refused" style text: message, then strerror when errno is set.
  std::string ToString() const;
};

template <typename T>
using Result = tl::expected<T, Error>;

// The failure side of a Result; `return Fail("bad length");`
inline tl::unexpected<Error> Fail(std::string message, int sys_errno = 0) {
  return tl::unexpected<Error>(Error{std::move(message), sys_errno});
}

// The same with a kind: `return Fail(ErrorKind::kBusy, "the server is busy");`
inline tl::unexpected<Error> Fail(ErrorKind kind, std::string message, int sys_errno = 0) {
  return tl::unexpected<Error>(Error{std::move(message), sys_errno, kind});
}

// `error` as a failure of `kind` (its words and errno kept).
inline tl::unexpected<Error> Fail(ErrorKind kind, Error error) {
  error.kind = kind;
  return tl::unexpected<Error>(std::move(error));
}

// Fail with the current errno of a syscall that just returned -1. Call it right away: the
// errno is captured here, at the boundary.
tl::unexpected<Error> FailErrno(std::string what);

// Result<void> needs a value to return on success.
using Status = Result<void>;
inline Status Ok() { return {}; }

}  // namespace nicbench
