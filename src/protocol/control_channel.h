// Framed, bounded, deadline-limited I/O on a connected control socket (or the first bytes of a
// data socket): state bytes, the cookie, length-prefixed JSON and the SERVER_ERROR tail.
//
// Every read takes a timeout that bounds the WHOLE message, not each read(2), so a peer that
// stalls or drips one byte at a time cannot hold us (CVE-2023-7250). A JSON length above
// `max_bytes` is refused before anything is allocated (CVE-2023-38403 was a 0xFFFFFFFF length).
// JSON is parsed without exceptions and documents nested deeper than kMaxJsonDepth are refused
// before parsing, so a hostile peer cannot exhaust the stack.
//
// The fd may be blocking or non-blocking: reads and writes use MSG_DONTWAIT and wait in poll(2).
// Writes use MSG_NOSIGNAL, so a closed peer is an EPIPE error, not a SIGPIPE. Error messages
// name the step: "reading parameters: timed out after 10 s".
// Thread safety: stateless functions; one thread at a time per fd.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "protocol/wire.h"

namespace nicbench::protocol {

using std::chrono::milliseconds;

// Defaults the session layer uses; documented in docs/protocol.md.
inline constexpr milliseconds kDefaultControlTimeout{10000};
inline constexpr milliseconds kDefaultSendTimeout{10000};
inline constexpr size_t kMaxParamsBytes = size_t{64} << 10;   // a 3.12 params doc is ~150-500 B
inline constexpr size_t kMaxResultsBytes = size_t{16} << 20;  // server_output_text, our record
inline constexpr int kMaxJsonDepth = 32;

// Writes the state byte.
Status SendState(int fd, State state, milliseconds timeout = kDefaultSendTimeout);

// Reads one state byte. Any byte value is returned (check IsKnownState if it matters); EOF and
// timeout are errors. `what` names the step in errors: "reading <what>: timed out after 10 s".
Result<State> ReadState(int fd, milliseconds timeout, std::string_view what = "state byte");

// 4-byte big-endian length + compact JSON (dump() without spaces), written as one buffer.
// Fails when the text is longer than 2^32-1 bytes.
// Strings that are not valid UTF-8 (a title from argv) are sent with U+FFFD replacements.
Status SendJson(int fd, const nlohmann::json& doc, milliseconds timeout = kDefaultSendTimeout);
Status SendJson(int fd, const nlohmann::ordered_json& doc,
                milliseconds timeout = kDefaultSendTimeout);

// Reads a length-prefixed JSON document: exact reads, refuses length > max_bytes before
// allocating, a short body or EOF is an error, invalid or too deeply nested JSON is an error.
Result<nlohmann::json> ReadJson(int fd, milliseconds timeout, size_t max_bytes,
                                std::string_view what = "JSON message");

// Parses JSON text without exceptions; refuses nesting deeper than kMaxJsonDepth. Exposed for
// DecodeParams/DecodeResults and tests.
Result<nlohmann::json> ParseJsonText(std::string_view text);

// Exactly kCookieBytes: 36 base32 characters and a NUL; anything else is an error.
Result<std::string> ReadCookie(int fd, milliseconds timeout, std::string_view what = "cookie");
// REQUIRES: IsValidCookie(cookie).
Status SendCookie(int fd, std::string_view cookie, milliseconds timeout = kDefaultSendTimeout);

// 0xFE, then i_errno and sys_errno as big-endian int32, in one write.
Status SendServerError(int fd, int i_errno, int sys_errno,
                       milliseconds timeout = kDefaultSendTimeout);

struct ServerErrorInfo {
  int i_errno = 0;
  int sys_errno = 0;
  bool has_sys_errno = false;  // 3.12 omits it for IEAUTHTEST
  // "unable to start stream listener: Address already in use", as a 3.12 client prints it.
  std::string Text() const;
};

// After ReadState returned kServerError: reads i_errno, then the errno int32 if the peer sends
// one. EOF right after i_errno is accepted (the IEAUTHTEST asymmetry); for IEAUTHTEST the wait
// for the missing int32 is at most 200 ms, since a 3.12 server never sends it.
Result<ServerErrorInfo> ReadServerErrorTail(int fd, milliseconds timeout);

// Low level: sends all `size` bytes or fails; reads exactly `size` bytes or fails. Exposed for
// the session layer (data-stream cookies, UDP is not framed here).
Status WriteAll(int fd, const void* data, size_t size, milliseconds timeout, std::string_view what);
Status ReadExact(int fd, void* data, size_t size, milliseconds timeout, std::string_view what);

}  // namespace nicbench::protocol
