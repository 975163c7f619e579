// The control connection as either end reads it: the input is the byte stream a peer sends,
// delivered through a real socket pair, so the framing (state bytes, cookie, length-prefixed
// JSON, the SERVER_ERROR tail) and the documents inside it (parameters, results, live samples,
// the extension's EndpointRecord) are read by the same functions a test uses.
//
// The first byte chooses the end: even = a server reading a client (cookie, parameters, a state
// byte, the client's results, IPERF_DONE); odd = a client reading a server (state bytes, each
// followed by what that state carries: a live sample, an error tail and its text, the results).
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "fuzz_input.h"
#include "protocol/control_channel.h"
#include "protocol/params.h"
#include "protocol/results.h"
#include "record/json.h"
#include "record/test_spec.h"

namespace wire = nicbench::protocol;
namespace record = nicbench::record;
using std::chrono::milliseconds;

namespace {

// Only a peer's bytes can end a read here (the writing end is shut before reading starts); the
// timeout would matter only if a read waited for bytes that can never come, itself a bug.
constexpr milliseconds kTimeout{2000};
// What a socket pair holds without a reader (net.core.wmem_default is 208 KiB).
constexpr size_t kMaxInput = 160 * 1024;

void ServerSide(int fd) {
  if (!wire::ReadCookie(fd, kTimeout)) return;
  auto params = wire::ReadJson(fd, kTimeout, wire::kMaxParamsBytes, "the parameters");
  if (!params) return;
  auto decoded = wire::DecodeParamsJson(*params);
  if (!decoded || record::Validate(decoded->spec)) return;
  if (!wire::ReadState(fd, kTimeout)) return;
  auto results = wire::ReadJson(fd, kTimeout, wire::kMaxParamsBytes * 16, "the client's results");
  if (!results) return;
  if (!wire::DecodeResultsJson(std::move(*results))) return;
  (void)wire::ReadState(fd, kTimeout, "IPERF_DONE");
}

void LiveSample(int fd) {
  auto doc = wire::ReadJson(fd, kTimeout, size_t{1} << 20, "a live sample");
  if (!doc || !doc->is_object()) return;
  const auto sample = doc->find("sample");
  if (sample != doc->end()) (void)record::HostIntervalFromJson(*sample);
}

void ServerResults(int fd) {
  auto doc = wire::ReadJson(fd, kTimeout, wire::kMaxResultsBytes, "the server's results");
  if (!doc) return;
  auto theirs = wire::DecodeResultsJson(std::move(*doc));
  if (theirs && theirs->extension) (void)record::EndpointFromJson(*theirs->extension);
}

void ClientSide(int fd) {
  for (int messages = 0; messages < 64; ++messages) {
    auto state = wire::ReadState(fd, kTimeout);
    if (!state) return;
    (void)wire::StateName(*state);
    switch (*state) {
      case wire::State::kNicbenchSample: LiveSample(fd); break;
      case wire::State::kServerError: {
        auto tail = wire::ReadServerErrorTail(fd, kTimeout);
        if (!tail) return;
        (void)tail->Text();
        (void)wire::ReadJson(fd, kTimeout, size_t{64} * 1024, "the server's error text");
        return;
      }
      case wire::State::kExchangeResults: ServerResults(fd); break;
      case wire::State::kAccessDenied:
      case wire::State::kServerTerminate:
      case wire::State::kIperfDone: return;
      default: break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > kMaxInput) return 0;
  int fds[2];
  NICBENCH_FUZZ_CHECK(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  for (size_t off = 1; off < size;) {
    const ssize_t n = ::write(fds[1], data + off, size - off);
    NICBENCH_FUZZ_CHECK(n > 0);
    off += static_cast<size_t>(n);
  }
  ::shutdown(fds[1], SHUT_WR);
  if (data[0] % 2 == 0) {
    ServerSide(fds[0]);
  } else {
    ClientSide(fds[0]);
  }
  ::close(fds[0]);
  ::close(fds[1]);
  return 0;
}
