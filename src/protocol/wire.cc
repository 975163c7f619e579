#include "protocol/wire.h"

#include <sys/random.h>

#include <array>
#include <cerrno>

#include <fmt/format.h>

#include "base/check.h"

namespace nicbench::protocol {
namespace {

uint32_t LoadBe32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

void StoreBe32(uint32_t v, uint8_t* p) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

bool SameBytes(const uint8_t* a, const uint8_t* b) {
  for (size_t i = 0; i < kUdpHandshakeBytes; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace

std::string StateName(State state) {
  switch (state) {
    case State::kTestStart: return "TEST_START";
    case State::kTestRunning: return "TEST_RUNNING";
    case State::kResultRequest: return "RESULT_REQUEST";
    case State::kTestEnd: return "TEST_END";
    case State::kStreamBegin: return "STREAM_BEGIN";
    case State::kStreamRunning: return "STREAM_RUNNING";
    case State::kStreamEnd: return "STREAM_END";
    case State::kAllStreamsEnd: return "ALL_STREAMS_END";
    case State::kParamExchange: return "PARAM_EXCHANGE";
    case State::kCreateStreams: return "CREATE_STREAMS";
    case State::kServerTerminate: return "SERVER_TERMINATE";
    case State::kClientTerminate: return "CLIENT_TERMINATE";
    case State::kExchangeResults: return "EXCHANGE_RESULTS";
    case State::kDisplayResults: return "DISPLAY_RESULTS";
    case State::kIperfStart: return "IPERF_START";
    case State::kIperfDone: return "IPERF_DONE";
    case State::kAccessDenied: return "ACCESS_DENIED";
    case State::kServerError: return "SERVER_ERROR";
    case State::kNicbenchSample: return "NICBENCH_SAMPLE";
    case State::kNicbenchRrReady: return "NICBENCH_RR_READY";
    case State::kNicbenchReady: return "NICBENCH_READY";
    case State::kNicbenchServerProof: return "NICBENCH_SERVER_PROOF";
    case State::kNicbenchCrrTokenReady: return "NICBENCH_CRR_TOKEN_READY";
    case State::kNicbenchClock: return "NICBENCH_CLOCK";
  }
  return fmt::format("UNKNOWN({})", static_cast<int>(state));
}

bool IsKnownState(int8_t byte) {
  return (byte >= 1 && byte <= 16) || byte == -1 || byte == -2 ||
         byte == static_cast<int8_t>(State::kNicbenchSample) ||
         byte == static_cast<int8_t>(State::kNicbenchRrReady) ||
         byte == static_cast<int8_t>(State::kNicbenchReady) ||
         byte == static_cast<int8_t>(State::kNicbenchServerProof) ||
         byte == static_cast<int8_t>(State::kNicbenchCrrTokenReady) ||
         byte == static_cast<int8_t>(State::kNicbenchClock);
}

std::string MakeCookie() {
  // 36 bytes of kernel randomness; 256 is a multiple of 32, so byte % 32 is unbiased.
  std::array<uint8_t, kCookieChars> random{};
  size_t filled = 0;
  while (filled < random.size()) {
    ssize_t n = getrandom(random.data() + filled, random.size() - filled, 0);
    if (n < 0 && errno == EINTR) continue;
    NB_CHECK(n > 0);
    filled += static_cast<size_t>(n);
  }
  std::string cookie(kCookieChars, '\0');
  for (size_t i = 0; i < kCookieChars; ++i) cookie[i] = kCookieAlphabet[random[i] % 32];
  return cookie;
}

bool IsValidCookie(std::string_view cookie) {
  if (cookie.size() != kCookieChars) return false;
  for (char c : cookie) {
    if (kCookieAlphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

bool IsAcceptedUdpReply(const uint8_t* data, size_t size) {
  if (data == nullptr || size != kUdpHandshakeBytes) return false;
  // 987654321 = 0x3ADE68B1, written in host order by servers up to 3.11.
  static constexpr uint8_t kLegacyLittle[] = {0xB1, 0x68, 0xDE, 0x3A};
  static constexpr uint8_t kLegacyBig[] = {0x3A, 0xDE, 0x68, 0xB1};
  return SameBytes(data, kUdpReply) || SameBytes(data, kUdpHello) ||
         SameBytes(data, kLegacyLittle) || SameBytes(data, kLegacyBig);
}

bool IsAcceptedUdpHello(const uint8_t* data, size_t size) {
  if (data == nullptr || size != kUdpHandshakeBytes) return false;
  static constexpr uint8_t kLegacyLittle[] = {0x15, 0xCD, 0x5B, 0x07};  // 123456789
  static constexpr uint8_t kLegacyBig[] = {0x07, 0x5B, 0xCD, 0x15};
  return SameBytes(data, kUdpHello) || SameBytes(data, kUdpReply) ||
         SameBytes(data, kLegacyLittle) || SameBytes(data, kLegacyBig);
}

void EncodeUdpHeader(const UdpHeader& header, bool counters64, uint8_t* out) {
  StoreBe32(header.sec, out);
  StoreBe32(header.usec, out + 4);
  if (counters64) {
    StoreBe32(static_cast<uint32_t>(header.seq >> 32), out + 8);
    StoreBe32(static_cast<uint32_t>(header.seq), out + 12);
  } else {
    StoreBe32(static_cast<uint32_t>(header.seq), out + 8);
  }
}

Result<UdpHeader> DecodeUdpHeader(const uint8_t* data, size_t size, bool counters64) {
  const size_t need = UdpHeaderBytes(counters64);
  if (data == nullptr || size < need) {
    return Fail(
        fmt::format("UDP datagram of {} bytes is shorter than the {}-byte header", size, need));
  }
  UdpHeader header;
  header.sec = LoadBe32(data);
  header.usec = LoadBe32(data + 4);
  header.seq =
      counters64 ? (uint64_t{LoadBe32(data + 8)} << 32) | LoadBe32(data + 12) : LoadBe32(data + 8);
  return header;
}

}  // namespace nicbench::protocol
