#include "protocol/control_channel.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "protocol/params.h"

namespace nicbench::protocol {
namespace {

using namespace std::chrono_literals;

// A connected pair of stream sockets: `ours` is the end under test, `peer` plays the other side.
class SocketPair {
 public:
  SocketPair() {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) std::abort();
    ours = fds[0];
    peer = fds[1];
  }
  ~SocketPair() {
    if (ours >= 0) close(ours);
    ClosePeer();
  }
  void ClosePeer() {
    if (peer >= 0) close(peer);
    peer = -1;
  }
  void PeerWrite(const std::string& bytes) {
    ASSERT_EQ(write(peer, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  std::string PeerRead(size_t size) {
    std::string out(size, '\0');
    size_t done = 0;
    while (done < size) {
      ssize_t n = read(peer, out.data() + done, size - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    out.resize(done);
    return out;
  }
  int ours = -1;
  int peer = -1;
};

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

std::string Framed(const std::string& body) {
  const uint32_t n = static_cast<uint32_t>(body.size());
  return Bytes({static_cast<int>(n >> 24), static_cast<int>((n >> 16) & 0xFF),
                static_cast<int>((n >> 8) & 0xFF), static_cast<int>(n & 0xFF)}) +
         body;
}

TEST(ControlChannelTest, StateBytesAreSigned) {
  SocketPair s;
  ASSERT_TRUE(SendState(s.ours, State::kServerError));
  ASSERT_TRUE(SendState(s.ours, State::kParamExchange));
  EXPECT_EQ(s.PeerRead(2), Bytes({0xFE, 0x09}));
  s.PeerWrite(Bytes({0xFF, 0x10, 0x2A}));
  EXPECT_EQ(*ReadState(s.ours, 1s), State::kAccessDenied);
  EXPECT_EQ(*ReadState(s.ours, 1s), State::kIperfDone);
  EXPECT_EQ(static_cast<int>(*ReadState(s.ours, 1s)), 42);  // returned, caller decides
}

TEST(ControlChannelTest, JsonFramingIsByteExact) {
  SocketPair s;
  record::TestSpec spec;
  spec.duration = 1s;
  spec.rate_bits_per_second = 50000000;
  ASSERT_TRUE(SendJson(s.ours, EncodeParams(spec)));
  const std::string expected =
      R"({"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"len":131072,"bandwidth":50000000,"pacing_timer":1000,"client_version":"3.12"})";
  EXPECT_EQ(s.PeerRead(4 + expected.size()), Framed(expected));
  EXPECT_EQ(expected.size(), 144u);  // the observed prefix was 00 00 00 90
}

TEST(ControlChannelTest, JsonRoundTripAndInvalidUtf8Replaced) {
  SocketPair s;
  nlohmann::json doc = {{"title", std::string("bad \xC3 utf8")}, {"n", 5}};
  ASSERT_TRUE(SendJson(s.ours, doc));
  auto back = ReadJson(s.peer, 1s, 1024, "test message");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ((*back)["n"], 5);
  EXPECT_NE((*back)["title"].get<std::string>().find("\xEF\xBF\xBD"), std::string::npos);
}

TEST(ControlChannelTest, BodyArrivingInPiecesIsReassembled) {
  SocketPair s;
  const std::string frame = Framed(R"({"a":[1,2,3]})");
  for (char c : frame) s.PeerWrite(std::string(1, c));
  auto doc = ReadJson(s.ours, 1s, 1024);
  ASSERT_TRUE(doc);
  EXPECT_EQ((*doc)["a"][2], 3);
}

// CVE-2023-38403: a 0xFFFFFFFF length must be refused before any allocation.
TEST(ControlChannelTest, HugeLengthRefusedBeforeAllocating) {
  SocketPair s;
  s.PeerWrite(Bytes({0xFF, 0xFF, 0xFF, 0xFF}));
  auto doc = ReadJson(s.ours, 1s, kMaxParamsBytes, "parameters");
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().message,
            "reading parameters: length 4294967295 exceeds the limit of 65536 bytes");
  s.PeerWrite(Bytes({0x00, 0x01, 0x00, 0x01}));  // 65537: one over
  EXPECT_FALSE(ReadJson(s.ours, 1s, kMaxParamsBytes));
}

TEST(ControlChannelTest, ZeroLengthAndInvalidJsonRefused) {
  SocketPair s;
  s.PeerWrite(Bytes({0, 0, 0, 0}));
  EXPECT_FALSE(ReadJson(s.ours, 1s, 1024));
  s.PeerWrite(Framed("{not json"));
  auto bad = ReadJson(s.ours, 1s, 1024, "results");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "reading results: invalid JSON");
}

TEST(ControlChannelTest, DeepNestingRefusedBeforeParsing) {
  SocketPair s;
  s.PeerWrite(Framed(std::string(5000, '[') + std::string(5000, ']')));
  auto doc = ReadJson(s.ours, 1s, 65536);
  ASSERT_FALSE(doc);
  EXPECT_NE(doc.error().message.find("nested deeper than 32"), std::string::npos);
  // Brackets inside strings do not count; 32 levels are fine.
  EXPECT_TRUE(ParseJsonText(R"({"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"[[[["})"));
  EXPECT_TRUE(ParseJsonText(std::string(32, '[') + std::string(32, ']')));
  EXPECT_FALSE(ParseJsonText(std::string(33, '[') + std::string(33, ']')));
}

TEST(ControlChannelTest, TruncatedBodyThenEofIsAnError) {
  SocketPair s;
  s.PeerWrite(Framed(R"({"tcp":true})").substr(0, 10));
  s.ClosePeer();
  auto doc = ReadJson(s.ours, 1s, 1024, "parameters");
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().message,
            "reading parameters: connection closed by the peer after 6 of 12 bytes");
}

// CVE-2023-7250: a silent peer must not hold us; the assertion is on the error, not the time.
TEST(ControlChannelTest, SilentPeerTimesOut) {
  SocketPair s;
  auto state = ReadState(s.ours, 50ms, "PARAM_EXCHANGE");
  ASSERT_FALSE(state);
  EXPECT_EQ(state.error().message, "reading PARAM_EXCHANGE: timed out after 50 ms");
  s.PeerWrite(Bytes({0, 0, 0, 20}) + "{\"a\":");  // a body that stops halfway
  auto doc = ReadJson(s.ours, 50ms, 1024, "parameters");
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().message, "reading parameters: timed out after 50 ms");
  EXPECT_FALSE(ReadCookie(s.ours, 50ms));
}

TEST(ControlChannelTest, SendTimesOutWhenPeerNeverReads) {
  SocketPair s;
  // Far more than a socket buffer: the write must give up rather than block forever.
  nlohmann::json big = {{"blob", std::string(8 << 20, 'x')}};
  auto st = SendJson(s.ours, big, 50ms);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "sending JSON message: timed out after 50 ms");
}

TEST(ControlChannelTest, EofIsAnError) {
  SocketPair s;
  s.ClosePeer();
  auto state = ReadState(s.ours, 1s, "state byte");
  ASSERT_FALSE(state);
  EXPECT_EQ(state.error().message, "reading state byte: connection closed by the peer");
}

TEST(ControlChannelTest, SendToClosedPeerIsAnErrorNotSigpipe) {
  SocketPair s;
  s.ClosePeer();
  auto st = SendState(s.ours, State::kIperfDone);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().sys_errno, EPIPE);
}

TEST(ControlChannelTest, CookieRoundTripAndValidation) {
  SocketPair s;
  const std::string cookie = MakeCookie();
  ASSERT_TRUE(SendCookie(s.ours, cookie));
  const std::string wire = s.PeerRead(kCookieBytes);
  ASSERT_EQ(wire.size(), 37u);
  EXPECT_EQ(wire.back(), '\0');
  s.PeerWrite(wire);
  auto back = ReadCookie(s.ours, 1s);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, cookie);

  std::string no_nul = wire;
  no_nul.back() = 'a';
  s.PeerWrite(no_nul);
  EXPECT_FALSE(ReadCookie(s.ours, 1s));
  std::string bad_char = wire;
  bad_char[0] = '!';
  s.PeerWrite(bad_char);
  EXPECT_FALSE(ReadCookie(s.ours, 1s));
  s.PeerWrite("GET / HTTP/1.1\r\n");  // 16 bytes, then nothing: a stray client
  auto stray = ReadCookie(s.ours, 50ms);
  ASSERT_FALSE(stray);
  EXPECT_EQ(stray.error().message, "reading cookie: timed out after 50 ms");
}

TEST(ControlChannelTest, ServerErrorBytesAsObserved) {
  SocketPair s;
  ASSERT_TRUE(SendServerError(s.ours, iperf_errno::kStreamListen, EADDRINUSE));
  const std::string wire = s.PeerRead(9);
  EXPECT_EQ(wire, Bytes({0xFE, 0, 0, 0, 0xCA, 0, 0, 0, 0x62}));  // i_errno 202, errno 98
  s.PeerWrite(wire);
  ASSERT_EQ(*ReadState(s.ours, 1s), State::kServerError);
  auto info = ReadServerErrorTail(s.ours, 1s);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->i_errno, 202);
  EXPECT_EQ(info->sys_errno, 98);
  EXPECT_TRUE(info->has_sys_errno);
  EXPECT_EQ(info->Text(), "unable to start stream listener: Address already in use");
}

TEST(ControlChannelTest, AuthFailureWithoutErrnoTolerated) {
  SocketPair s;
  s.PeerWrite(Bytes({0, 0, 0, 142}));  // IEAUTHTEST, and 3.12 writes nothing more
  auto info = ReadServerErrorTail(s.ours, 5s);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->i_errno, iperf_errno::kAuthTest);
  EXPECT_FALSE(info->has_sys_errno);
  EXPECT_EQ(info->Text(), "test authorization failed");
}

TEST(ControlChannelTest, MissingErrnoAtEofTolerated) {
  SocketPair s;
  s.PeerWrite(Bytes({0, 0, 0, 121}));
  s.ClosePeer();
  auto info = ReadServerErrorTail(s.ours, 1s);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->i_errno, 121);
  EXPECT_FALSE(info->has_sys_errno);
}

TEST(ControlChannelTest, TruncatedServerErrorIsAnError) {
  SocketPair s;
  s.PeerWrite(Bytes({0, 0}));
  s.ClosePeer();
  EXPECT_FALSE(ReadServerErrorTail(s.ours, 1s));
  SocketPair t;
  t.PeerWrite(Bytes({0, 0, 0, 202, 0, 0}));
  t.ClosePeer();
  EXPECT_FALSE(ReadServerErrorTail(t.ours, 1s));
}

TEST(ControlChannelTest, PipesWorkToo) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_TRUE(SendJson(fds[1], nlohmann::json{{"k", 1}}));
  auto doc = ReadJson(fds[0], 1s, 64);
  close(fds[0]);
  close(fds[1]);
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ((*doc)["k"], 1);
}

}  // namespace
}  // namespace nicbench::protocol
