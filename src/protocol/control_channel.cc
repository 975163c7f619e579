#include "protocol/control_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "base/check.h"

namespace nicbench::protocol {
namespace {

using SteadyTime = std::chrono::steady_clock::time_point;

std::string DurationText(milliseconds timeout) {
  if (timeout.count() % 1000 == 0) return fmt::format("{} s", timeout.count() / 1000);
  return fmt::format("{} ms", timeout.count());
}

tl::unexpected<Error> TimedOut(std::string_view verb, std::string_view what, milliseconds timeout) {
  return Fail(fmt::format("{} {}: timed out after {}", verb, what, DurationText(timeout)));
}

// Waits until `fd` is ready for `events` or the deadline passes. Returns false on timeout.
Result<bool> WaitReady(int fd, short events, SteadyTime deadline, std::string_view verb,
                       std::string_view what) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    // Round up so a sub-millisecond remainder does not spin with a 0 timeout.
    const int rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count() + 1, INT32_MAX)));
    if (rc > 0) {
      if (p.revents & POLLNVAL) return Fail(fmt::format("{} {}: bad file descriptor", verb, what));
      return true;  // readable, writable, hung up or in error: the next call tells which
    }
    if (rc == 0) continue;
    if (errno == EINTR) continue;
    return FailErrno(fmt::format("{} {}: poll", verb, what));
  }
}

ssize_t ReceiveSome(int fd, uint8_t* data, size_t size) {
  ssize_t n = recv(fd, data, size, MSG_DONTWAIT);
  if (n < 0 && errno == ENOTSOCK) n = read(fd, data, size);  // pipes in tests
  return n;
}

ssize_t SendSome(int fd, const uint8_t* data, size_t size) {
  ssize_t n = send(fd, data, size, MSG_DONTWAIT | MSG_NOSIGNAL);
  if (n < 0 && errno == ENOTSOCK) n = write(fd, data, size);
  return n;
}

// Reads up to `size` bytes before the deadline. With `allow_short`, EOF and timeout end the read
// early and the count says how far it got; without, they are errors.
Result<size_t> ReadUpTo(int fd, uint8_t* data, size_t size, SteadyTime deadline,
                        milliseconds timeout, std::string_view what, bool allow_short) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ReceiveSome(fd, data + done, size - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) {
      if (allow_short) return done;
      if (done == 0) return Fail(fmt::format("reading {}: connection closed by the peer", what));
      return Fail(fmt::format("reading {}: connection closed by the peer after {} of {} bytes",
                              what, done, size));
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return FailErrno(fmt::format("reading {}", what));
    auto ready = WaitReady(fd, POLLIN, deadline, "reading", what);
    if (!ready) return tl::unexpected(ready.error());
    if (!*ready) {
      if (allow_short) return done;
      return TimedOut("reading", what, timeout);
    }
  }
  return done;
}

void StoreBe32(uint32_t v, uint8_t* p) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

uint32_t LoadBe32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// A cheap scan before parsing: the deepest nesting of [ and { outside strings.
bool NestedDeeperThan(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // skip the escaped character, which may be a quote
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

template <typename Json>
Status SendJsonText(int fd, const Json& doc, milliseconds timeout) {
  // The text goes straight after the 4-byte length, so a results document with a 1,000-stream
  // record is not held twice. replace: a title from argv need not be UTF-8, and dump() would
  // otherwise throw.
  std::string frame(4, '\0');
  nlohmann::detail::serializer<Json>(nlohmann::detail::output_adapter<char>(frame), ' ',
                                     nlohmann::detail::error_handler_t::replace)
      .dump(doc, false, false, 0);
  const size_t length = frame.size() - 4;
  if (length > UINT32_MAX) return Fail("sending JSON: document longer than 4 GiB");
  StoreBe32(static_cast<uint32_t>(length), reinterpret_cast<uint8_t*>(frame.data()));
  return WriteAll(fd, frame.data(), frame.size(), timeout, "JSON message");
}

}  // namespace

Status WriteAll(int fd, const void* data, size_t size, milliseconds timeout,
                std::string_view what) {
  const SteadyTime deadline = std::chrono::steady_clock::now() + timeout;
  const auto* bytes = static_cast<const uint8_t*>(data);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = SendSome(fd, bytes + done, size - done);
    if (n >= 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return FailErrno(fmt::format("sending {}", what));
    auto ready = WaitReady(fd, POLLOUT, deadline, "sending", what);
    if (!ready) return tl::unexpected(ready.error());
    if (!*ready) return TimedOut("sending", what, timeout);
  }
  return Ok();
}

Status ReadExact(int fd, void* data, size_t size, milliseconds timeout, std::string_view what) {
  const SteadyTime deadline = std::chrono::steady_clock::now() + timeout;
  auto got = ReadUpTo(fd, static_cast<uint8_t*>(data), size, deadline, timeout, what, false);
  if (!got) return tl::unexpected(got.error());
  return Ok();
}

Status SendState(int fd, State state, milliseconds timeout) {
  const auto byte = static_cast<uint8_t>(static_cast<int8_t>(state));
  return WriteAll(fd, &byte, 1, timeout, StateName(state));
}

Result<State> ReadState(int fd, milliseconds timeout, std::string_view what) {
  uint8_t byte = 0;
  if (auto st = ReadExact(fd, &byte, 1, timeout, what); !st) return tl::unexpected(st.error());
  return static_cast<State>(static_cast<int8_t>(byte));
}

Status SendJson(int fd, const nlohmann::json& doc, milliseconds timeout) {
  return SendJsonText(fd, doc, timeout);
}

Status SendJson(int fd, const nlohmann::ordered_json& doc, milliseconds timeout) {
  return SendJsonText(fd, doc, timeout);
}

Result<nlohmann::json> ParseJsonText(std::string_view text) {
  if (NestedDeeperThan(text, kMaxJsonDepth)) {
    return Fail(fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth));
  }
  nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), nullptr,
                                             /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Fail("invalid JSON");
  return doc;
}

Result<nlohmann::json> ReadJson(int fd, milliseconds timeout, size_t max_bytes,
                                std::string_view what) {
  // One deadline for the length and the body: a peer dripping bytes cannot extend it.
  const SteadyTime deadline = std::chrono::steady_clock::now() + timeout;
  uint8_t prefix[4];
  auto got = ReadUpTo(fd, prefix, sizeof prefix, deadline, timeout, what, false);
  if (!got) return tl::unexpected(got.error());
  const uint32_t length = LoadBe32(prefix);
  if (length > max_bytes) {
    return Fail(fmt::format("reading {}: length {} exceeds the limit of {} bytes", what, length,
                            max_bytes));
  }
  if (length == 0) return Fail(fmt::format("reading {}: empty message", what));
  std::string body(length, '\0');
  got =
      ReadUpTo(fd, reinterpret_cast<uint8_t*>(body.data()), length, deadline, timeout, what, false);
  if (!got) return tl::unexpected(got.error());
  auto doc = ParseJsonText(body);
  if (!doc) return Fail(fmt::format("reading {}: {}", what, doc.error().message));
  return doc;
}

Result<std::string> ReadCookie(int fd, milliseconds timeout, std::string_view what) {
  std::array<char, kCookieBytes> buffer{};
  if (auto st = ReadExact(fd, buffer.data(), buffer.size(), timeout, what); !st) {
    return tl::unexpected(st.error());
  }
  std::string cookie(buffer.data(), kCookieChars);
  if (buffer[kCookieChars] != '\0' || !IsValidCookie(cookie)) {
    return Fail(fmt::format("reading {}: not a valid iperf3 cookie", what));
  }
  return cookie;
}

Status SendCookie(int fd, std::string_view cookie, milliseconds timeout) {
  NB_CHECK(IsValidCookie(cookie));
  std::array<char, kCookieBytes> buffer{};  // the last byte stays NUL
  std::memcpy(buffer.data(), cookie.data(), kCookieChars);
  return WriteAll(fd, buffer.data(), buffer.size(), timeout, "cookie");
}

Status SendServerError(int fd, int i_errno, int sys_errno, milliseconds timeout) {
  uint8_t frame[9];
  frame[0] = static_cast<uint8_t>(static_cast<int8_t>(State::kServerError));
  StoreBe32(static_cast<uint32_t>(i_errno), frame + 1);
  StoreBe32(static_cast<uint32_t>(sys_errno), frame + 5);
  return WriteAll(fd, frame, sizeof frame, timeout, "SERVER_ERROR");
}

Result<ServerErrorInfo> ReadServerErrorTail(int fd, milliseconds timeout) {
  constexpr std::string_view kWhat = "SERVER_ERROR code";
  uint8_t word[4];
  if (auto st = ReadExact(fd, word, sizeof word, timeout, kWhat); !st) {
    return tl::unexpected(st.error());
  }
  ServerErrorInfo info;
  info.i_errno = static_cast<int32_t>(LoadBe32(word));
  // 3.12 sends no errno after IEAUTHTEST; do not wait long for what will not come.
  const milliseconds wait =
      info.i_errno == iperf_errno::kAuthTest ? std::min(timeout, milliseconds(200)) : timeout;
  const SteadyTime deadline = std::chrono::steady_clock::now() + wait;
  auto got = ReadUpTo(fd, word, sizeof word, deadline, wait, "SERVER_ERROR errno", true);
  if (!got) return tl::unexpected(got.error());
  if (*got == sizeof word) {
    info.sys_errno = static_cast<int32_t>(LoadBe32(word));
    info.has_sys_errno = true;
  } else if (*got != 0) {
    return Fail(fmt::format("reading SERVER_ERROR errno: only {} of 4 bytes", *got));
  }
  return info;
}

std::string ServerErrorInfo::Text() const {
  std::string text = IperfErrorText(i_errno);
  if (has_sys_errno && sys_errno != 0) text += fmt::format(": {}", std::strerror(sys_errno));
  return text;
}

}  // namespace nicbench::protocol
