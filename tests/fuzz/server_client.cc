// The fuzzed client of server_conversation.cc; the byte layout of its script is in
// docs/fuzzing.md ("server_conversation") and tests/fuzz/make_server_seeds.py writes it.
#include "server_client.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "engine/conversation/stream_plan.h"
#include "engine/conversation/udp_handshake.h"
#include "fuzz_input.h"
#include "net/socket.h"
#include "protocol/control_channel.h"
#include "protocol/results.h"

namespace nicbench::fuzz {
namespace {

using std::chrono::milliseconds;
namespace wire = protocol;

// How long the client waits for the server. The server's own timeouts (server_conversation.cc:
// 0.5 s set-up, 1 s control) end every wait of its own well before this.
constexpr milliseconds kWait{3000};
constexpr size_t kMaxStreams = 17;        // the server refuses more than 8 per direction
constexpr size_t kMaxPayload = 16 << 10;  // one write or datagram

// A step's first byte: these two are the same at every state.
constexpr uint8_t kStepClose = 0xFF;      // close everything now (an early close)
constexpr uint8_t kStepOutOfTurn = 0xFE;  // send the next byte as a state byte, then answer

const char* const kCongestion[] = {"", "cubic", "reno", "nonesuch"};

// Keys a client's parameters may carry ('/' is a level of the "nicbench" object).
const char* const kKeys[] = {"tcp",
                             "udp",
                             "sctp",
                             "omit",
                             "time",
                             "num",
                             "blockcount",
                             "MSS",
                             "nodelay",
                             "parallel",
                             "reverse",
                             "bidirectional",
                             "window",
                             "len",
                             "bandwidth",
                             "fqrate",
                             "pacing_timer",
                             "burst",
                             "TOS",
                             "flowlabel",
                             "title",
                             "extra_data",
                             "congestion",
                             "congestion_used",
                             "get_server_output",
                             "udp_counters_64bit",
                             "repeating_payload",
                             "zerocopy",
                             "dont_fragment",
                             "client_version",
                             "authtoken",
                             "server_affinity",
                             "skip_rx_copy",
                             "mptcp",
                             "nicbench",
                             "nicbench/version",
                             "nicbench/want_samples",
                             "nicbench/live_samples",
                             "nicbench/announce",
                             "nicbench/interval_ms",
                             "nicbench/time_ms",
                             "nicbench/omit_ms",
                             "nicbench/skip_rx_copy",
                             "nicbench/msg_zerocopy",
                             "nicbench/udp_offload",
                             "nicbench/rr",
                             "nicbench/rr/mode",
                             "nicbench/rr/request_bytes",
                             "nicbench/rr/response_bytes",
                             "nicbench/rr/burst",
                             "nicbench/rr/timeout_ms",
                             "nicbench/rr/spin_us"};

std::string Dump(const nlohmann::ordered_json& doc) {
  // A fuzzed title need not be UTF-8; SendJson sends such text with U+FFFD as well.
  return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// The control channel's framing (control_channel.h) around any text: 4-byte big-endian
// length, then the bytes.
bool SendFramed(int fd, const std::string& text) {
  const uint32_t length = htonl(static_cast<uint32_t>(text.size()));
  std::string frame(reinterpret_cast<const char*>(&length), sizeof length);
  frame += text;
  return static_cast<bool>(wire::WriteAll(fd, frame.data(), frame.size(), kWait, "fuzz"));
}

nlohmann::ordered_json FuzzedValue(Script& in, uint32_t kind) {
  switch (kind) {
    case 1: return static_cast<int32_t>(in.U32());
    case 2: return std::numeric_limits<uint64_t>::max();
    case 3: return std::numeric_limits<int64_t>::min();
    case 4: return static_cast<double>(in.U32()) / 7.0;
    case 5: return in.Text();
    case 6: return in.Bit();
    case 7: return nullptr;
    case 8: return nlohmann::ordered_json::array();
    default: return nlohmann::ordered_json::object();
  }
}

}  // namespace

FuzzedParams ReadParams(Script& in) {
  FuzzedParams p;
  record::TestSpec& s = p.spec;
  const uint16_t flags = in.U16();
  s.transport = flags & 0x1 ? record::Transport::kUdp : record::Transport::kTcp;
  s.direction = static_cast<record::Direction>(in.Below(3));
  s.parallel = 1 + static_cast<int>(in.Below(10));
  switch (in.Below(3)) {
    case 1: s.bytes = in.U16(); break;
    case 2: s.blocks = in.Byte(); break;
    default: s.duration = milliseconds(100 * (1 + in.Below(100)));
  }
  s.omit = milliseconds(100 * in.Below(4));
  s.interval = milliseconds(100 * in.Below(21));
  if (flags & 0x2) s.block_bytes = in.U32() % (2u << 20);
  if (flags & 0x4) s.rate_bits_per_second = uint64_t{in.U32()} * 8;
  if (flags & 0x8) s.window_bytes = in.U32() % (8u << 20);
  if (flags & 0x10) s.mss_bytes = in.U16();
  s.no_delay = flags & 0x20;
  if (flags & 0x40) s.tos = in.Byte();
  s.zero_copy = static_cast<record::ZeroCopy>(in.Below(3));
  s.skip_rx_copy = flags & 0x80;
  s.udp_counters_64bit = flags & 0x100;
  s.udp_offload = flags & 0x200;
  s.repeating_payload = flags & 0x400;
  s.get_server_output = flags & 0x800;
  s.congestion = kCongestion[in.Below(4)];
  if (flags & 0x1000) s.title = in.Text();
  if (flags & 0x2000) {
    s.rr.mode = static_cast<record::RrMode>(1 + in.Below(2));
    s.rr.request_bytes = 1 + in.U16();
    s.rr.response_bytes = 1 + in.U16();
    s.rr.burst = 1 + in.Below(4);
    s.rr.timeout_ms = 100;
  }
  if (flags & 0x4000) s.server_affinity = static_cast<int>(in.Below(4));
  if (!(flags & 0x8000)) {
    const uint8_t x = in.Byte();
    p.ext = protocol::Extension{
        .want_samples = !(x & 1), .live_samples = (x & 2) != 0, .announce = (x & 4) != 0};
  }
  return p;
}

void OverrideKeys(Script& in, nlohmann::ordered_json& doc) {
  const uint32_t count = 1 + in.Below(4);
  for (uint32_t i = 0; i < count; ++i) {
    const std::string key = kKeys[in.Below(std::size(kKeys))];
    const uint32_t kind = in.Below(10);
    nlohmann::ordered_json::json_pointer ptr("/" + key);
    try {
      if (kind == 0) {
        doc.at(ptr.parent_pointer()).erase(ptr.back());
      } else {
        doc[ptr] = FuzzedValue(in, kind);
      }
    } catch (const nlohmann::json::exception&) {
      // A level above is no object (the fuzzer replaced "nicbench" by a number): keep it so.
    }
  }
}

void ServerClient::Run() {
  auto fd = net::Connect(server_, "", 0, {}, kWait);
  if (!fd) return;
  control_ = std::move(*fd);
  if (!SendCookie()) return;
  for (int steps = 0; steps < 64 && control_; ++steps) {
    auto state = wire::ReadState(control_.get(), kWait);
    if (!state) return;
    const uint8_t step = in_.Byte();
    if (step == kStepClose) return;
    if (step == kStepOutOfTurn) {
      (void)wire::SendState(control_.get(), static_cast<wire::State>(in_.Byte()), kWait);
    }
    if (OnState(*state) == Next::kStop) return;
  }
}

bool ServerClient::SendCookie() {
  switch (in_.Below(4)) {
    case 0:
      cookie_ = wire::MakeCookie();
      return static_cast<bool>(wire::SendCookie(control_.get(), cookie_, kWait));
    case 1: {
      // Any 37 bytes (or fewer, then EOF): the acceptor refuses, or starts a test.
      (void)SendRawAndShut();
      return true;
    }
    case 2: {
      const std::string cookie = wire::MakeCookie();
      (void)wire::WriteAll(control_.get(), cookie.data(), in_.Below(wire::kCookieBytes), kWait,
                           "fuzz");
      return false;
    }
    default: return false;
  }
}

ServerClient::Next ServerClient::OnState(wire::State state) {
  switch (state) {
    case wire::State::kParamExchange: return OnParams();
    case wire::State::kCreateStreams: return OnCreateStreams();
    case wire::State::kTestRunning: return OnRunning();
    case wire::State::kExchangeResults: return OnExchangeResults();
    case wire::State::kDisplayResults:
      (void)wire::SendState(control_.get(), wire::State::kIperfDone, kWait);
      return Next::kGoOn;  // the server closes; the next read ends the conversation
    case wire::State::kServerError: return OnServerError();
    case wire::State::kNicbenchSample:
      return wire::ReadJson(control_.get(), kWait, size_t{1} << 20) ? Next::kGoOn : Next::kStop;
    case wire::State::kNicbenchReady:
    case wire::State::kNicbenchRrReady:
    case wire::State::kTestStart: return Next::kGoOn;
    default: return Next::kStop;  // ACCESS_DENIED, SERVER_TERMINATE, or a byte we do not know
  }
}

ServerClient::Next ServerClient::OnParams() {
  const uint32_t choice = in_.Below(5);
  switch (choice) {
    case 0:
    case 1: {
      FuzzedParams p = ReadParams(in_);
      nlohmann::ordered_json doc = protocol::EncodeParams(p.spec, p.ext);
      if (choice == 1) OverrideKeys(in_, doc);
      return SendParamsText(Dump(doc));
    }
    case 2: return SendParamsText(in_.Text());  // e.g. a recorded client's parameters
    case 3: return SendRawAndShut();
    default: return Close();
  }
}

ServerClient::Next ServerClient::SendParamsText(const std::string& text) {
  // What the server makes of it decides the streams and the results to send.
  if (auto decoded = protocol::DecodeParams(text)) {
    spec_ = decoded->spec;
    nicbench_ = decoded->peer_is_nicbench();
  }
  return SendFramed(control_.get(), text) ? Next::kGoOn : Next::kStop;
}

ServerClient::Next ServerClient::OnCreateStreams() {
  const size_t planned = engine::PlanStreams(spec_, /*is_client=*/true).size();
  size_t count = planned;
  switch (in_.Below(8)) {
    case 6: count = planned > 0 ? planned - 1 : 0; break;  // the server waits, then fails
    case 7: count = planned + 1; break;                    // one too many: refused
    default: break;
  }
  for (size_t i = 0; i < std::min(count, kMaxStreams); ++i) {
    ConnectStream(/*own_cookie=*/in_.Below(16) != 15);
  }
  return Next::kGoOn;
}

void ServerClient::ConnectStream(bool own_cookie) {
  Result<net::UniqueFd> fd = tl::unexpected(Error{"no stream"});
  if (spec_.transport == record::Transport::kUdp) {
    fd = engine::UdpClientHandshake(server_, spec_, 0, milliseconds(1000));
  } else {
    fd = net::Connect(server_, "", 0, {}, kWait);
    // Another cookie is another test's (or none's): the acceptor starts a test for it.
    const std::string cookie = own_cookie && !cookie_.empty() ? cookie_ : wire::MakeCookie();
    if (fd) (void)wire::SendCookie(fd->get(), cookie, kWait);
  }
  if (!fd) return;
  streams_.push_back(std::move(*fd));
  sent_bytes_.push_back(0);
  sent_datagrams_.push_back(0);
}

ServerClient::Next ServerClient::OnRunning() {
  const uint32_t rounds = in_.Below(4);
  for (uint32_t r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < streams_.size(); ++i) SendData(i);
  }
  switch (in_.Below(8)) {
    case 5: (void)wire::SendState(control_.get(), wire::State::kClientTerminate, kWait); break;
    case 6:
      (void)wire::SendState(control_.get(), static_cast<wire::State>(in_.Byte()), kWait);
      break;
    case 7: return Close();
    default: (void)wire::SendState(control_.get(), wire::State::kTestEnd, kWait);
  }
  return Next::kGoOn;
}

void ServerClient::SendData(size_t stream) {
  std::string payload = in_.Text();
  if (payload.empty()) return;
  payload.resize(std::min(payload.size(), kMaxPayload));
  // Never blocks: a reverse test's server sends as well, and nobody reads our end.
  const ssize_t n =
      ::send(streams_[stream].get(), payload.data(), payload.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  if (n <= 0) return;
  sent_bytes_[stream] += static_cast<uint64_t>(n);
  sent_datagrams_[stream] += 1;
}

ServerClient::Next ServerClient::OnExchangeResults() {
  std::string text;
  switch (in_.Below(5)) {
    case 0: text = BuildResults(/*fuzzed=*/false); break;
    case 1: text = BuildResults(/*fuzzed=*/true); break;
    case 2: text = in_.Text(); break;  // e.g. a recorded client's results
    case 3: return SendRawAndShut();
    default: return Close();
  }
  if (!SendFramed(control_.get(), text)) return Next::kStop;
  return ReadServerResults();
}

// The results a client sends: what each of its streams sent (a receiver's count is 0: nobody
// read), or with `fuzzed` fuzzed counts, CPU figures and a "nicbench" value.
std::string ServerClient::BuildResults(bool fuzzed) {
  protocol::PeerResults r;
  const auto roles = engine::PlanStreams(spec_, /*is_client=*/true);
  const bool tcp = spec_.transport == record::Transport::kTcp;
  const bool sends = std::any_of(roles.begin(), roles.end(), [](auto& x) { return x.sender; });
  r.sender_has_retransmits = sends ? (tcp ? 1 : 0) : -1;
  if (fuzzed) {
    r.cpu_util_total = in_.Byte();
    r.cpu_util_user = in_.Byte();
    r.cpu_util_system = in_.Byte();
  }
  for (size_t i = 0; i < roles.size(); ++i) {
    protocol::PeerStream s;
    s.id = roles[i].id;
    s.bytes = i < sent_bytes_.size() && roles[i].sender ? sent_bytes_[i] : 0;
    s.packets = i < sent_datagrams_.size() && !tcp ? static_cast<int64_t>(sent_datagrams_[i]) : 0;
    s.retransmits = tcp && roles[i].sender ? 0 : -1;
    if (fuzzed) {
      s.bytes += in_.U16();
      s.errors = in_.Byte();
      s.jitter = in_.Byte() / 1000.0;
    }
    s.end_time = std::chrono::duration<double>(spec_.duration).count();
    r.streams.push_back(s);
  }
  if (fuzzed && nicbench_) {
    auto extension = nlohmann::json::parse(in_.Text(), nullptr, false);
    if (!extension.is_discarded()) r.extension = std::move(extension);
  }
  return Dump(protocol::EncodeResults(r));
}

// The server answers our results with its own (a length whose first byte is 0: the document
// is under 16 MiB), or with a state byte (SERVER_ERROR), or closes.
ServerClient::Next ServerClient::ReadServerResults() {
  pollfd p{control_.get(), POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(kWait.count())) != 1) return Next::kStop;
  uint8_t first = 0;
  if (::recv(control_.get(), &first, 1, MSG_PEEK) != 1) return Next::kStop;
  if (first != 0) return Next::kGoOn;  // a state byte: the loop reads it
  auto doc = wire::ReadJson(control_.get(), kWait, wire::kMaxResultsBytes, "the results");
  if (!doc) return Next::kStop;
  auto theirs = protocol::DecodeResultsJson(std::move(*doc));
  // Our own server's results must read back: anything else is a bug on one side.
  if (!theirs)
    std::fprintf(stderr, "the server's results: %s\n", theirs.error().ToString().c_str());
  NICBENCH_FUZZ_CHECK(theirs.has_value());
  return Next::kGoOn;
}

ServerClient::Next ServerClient::OnServerError() {
  auto tail = wire::ReadServerErrorTail(control_.get(), kWait);
  if (!tail) return Next::kStop;
  (void)tail->Text();
  // A nicbench client is told in words as well; a stock one gets nothing more.
  if (nicbench_) (void)wire::ReadJson(control_.get(), kWait, size_t{64} << 10, "the error");
  return Next::kStop;
}

ServerClient::Next ServerClient::SendRawAndShut() {
  const std::string raw = in_.Text();
  if (!raw.empty()) (void)wire::WriteAll(control_.get(), raw.data(), raw.size(), kWait, "fuzz");
  ::shutdown(control_.get(), SHUT_WR);
  return Next::kGoOn;
}

ServerClient::Next ServerClient::Close() {
  control_.Reset();
  streams_.clear();
  return Next::kStop;
}

}  // namespace nicbench::fuzz
