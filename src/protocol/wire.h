// The fixed-size pieces of the iperf3 control protocol as iperf 3.12 speaks it
// (specs/iperf3-protocol.md): state bytes, the 37-byte cookie, the UDP "connect" hello/reply,
// the UDP datagram header, and the iperf3 i_errno codes a server sends with SERVER_ERROR.
// Pure functions and constants; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace nicbench::protocol {

// One signed byte on the control connection per state change (spec section 3).
enum class State : int8_t {
  kTestStart = 1,
  kTestRunning = 2,
  kResultRequest = 3,  // unused by iperf3
  kTestEnd = 4,
  kStreamBegin = 5,  // 5..8 unused by iperf3
  kStreamRunning = 6,
  kStreamEnd = 7,
  kAllStreamsEnd = 8,
  kParamExchange = 9,
  kCreateStreams = 10,
  kServerTerminate = 11,
  kClientTerminate = 12,
  kExchangeResults = 13,
  kDisplayResults = 14,
  kIperfStart = 15,  // the server's idle state; never sent
  kIperfDone = 16,
  kAccessDenied = -1,  // 0xFF: busy server, or a bad cookie on a data stream
  kServerError = -2,   // 0xFE: followed by i_errno and errno (see control_channel.h)
  // Ours, never iperf3's: a nicbench server sends it during the test, to a nicbench client that
  // asked for live samples (Extension::live_samples), followed by one JSON message
  // {"index": k, "sample": HostInterval}: its host sample of its k-th interval.
  kNicbenchSample = 100,
  // A nicbench server accepts a request/response test (the parameters' nicbench.rr): sent
  // right after the parameters, before CREATE_STREAMS. A stock iperf3 server sends
  // CREATE_STREAMS instead, which tells the client at once that it cannot run the test.
  kNicbenchRrReady = 101,
  // A nicbench server says it is one: sent right after the parameters, before CREATE_STREAMS,
  // to a nicbench client that asked (Extension::announce) for a bulk test. The client then
  // knows, before any byte goes, that the receiver reads every byte before it closes, which a
  // stock iperf3 server does not do at TEST_END (engine FlowConfig::peer_drains).
  kNicbenchReady = 102,
  // A nicbench server's proof of its key (server_proof.h), to a client that asked with
  // Extension::prove_key: right after the parameters, before any other state byte of the test,
  // followed by one JSON message, {"signature": BASE64} or, from a server without a key,
  // {"error": TEXT} (the server then ends the test).
  kNicbenchServerProof = 103,
  // NICBENCH_RR_READY for a CRR test whose client sent Extension::crr_token: each CRR
  // connection then begins with the token, and the listener counts no connection without it.
  // A server that does not know the token sends NICBENCH_RR_READY, and the client sends none.
  kNicbenchCrrTokenReady = 104,
  // A nicbench server takes part in the clock exchanges a request/response client asked for
  // (Extension::clock_exchanges, clock_exchange.h): sent after the parameters (and the proof of
  // its key), before NICBENCH_RR_READY; the exchanges follow at once, and the test's TCP RR
  // responses then begin with the server's receive and send timestamps.
  kNicbenchClock = 105,
};

// "TEST_START", "ACCESS_DENIED", ...; "UNKNOWN(<n>)" for a byte that is no state.
std::string StateName(State state);

// True for the byte values listed in State (1..16, -1, -2, and our 100..105).
bool IsKnownState(int8_t byte);

// The cookie: 36 characters of the base32 alphabet and a NUL, 37 bytes on the wire.
inline constexpr size_t kCookieBytes = 37;
inline constexpr size_t kCookieChars = kCookieBytes - 1;
inline constexpr std::string_view kCookieAlphabet = "abcdefghijklmnopqrstuvwxyz234567";

// 36 characters from getrandom(2); aborts through NB_CHECK only if the kernel refuses entropy.
std::string MakeCookie();

// Exactly 36 characters, all from kCookieAlphabet (no NUL: that is framing, not the cookie).
bool IsValidCookie(std::string_view cookie);

// UDP "connect" handshake, 4 bytes each way. We always send the bytes a 3.12 client/server on
// x86 sends, whatever our own byte order.
inline constexpr size_t kUdpHandshakeBytes = 4;
inline constexpr uint8_t kUdpHello[kUdpHandshakeBytes] = {0x39, 0x38, 0x37, 0x36};  // "9876"
inline constexpr uint8_t kUdpReply[kUdpHandshakeBytes] = {0x36, 0x37, 0x38, 0x39};  // "6789"

// A client accepts 36 37 38 39, 39 38 37 36, and 987654321 in either byte order (<= 3.11
// servers). Anything else, or a length other than 4, is refused.
bool IsAcceptedUdpReply(const uint8_t* data, size_t size);

// A server accepts a hello of exactly 4 bytes that a client writes: 0x36373839 in host order
// (3.12 and later: "9876" from a little-endian host, "6789" from a big-endian one) or 123456789
// (up to 3.11), either byte order. 3.12's server takes any datagram of at most 4 bytes, which
// let a stray or hostile small datagram from the client's host take a stream's place.
bool IsAcceptedUdpHello(const uint8_t* data, size_t size);

// The header at the start of every UDP data datagram: the sender's monotonic clock and a
// sequence number starting at 1. Big-endian on the wire.
struct UdpHeader {
  uint32_t sec = 0;
  uint32_t usec = 0;
  uint64_t seq = 0;
};

// 12 bytes (32-bit sequence) or 16 bytes (with udp_counters_64bit).
inline constexpr size_t UdpHeaderBytes(bool counters64) { return counters64 ? 16 : 12; }

// Writes UdpHeaderBytes(counters64) bytes at `out`. With 32-bit counters the sequence is
// truncated to its low 32 bits, as iperf3 does.
void EncodeUdpHeader(const UdpHeader& header, bool counters64, uint8_t* out);

// Reads a header from a received datagram; fails when `size` is shorter than the header.
Result<UdpHeader> DecodeUdpHeader(const uint8_t* data, size_t size, bool counters64);

// iperf3 3.12 i_errno values (src/iperf_api.h) that travel in SERVER_ERROR or that a client
// reports. Plain ints because they are wire values, not our own error type.
namespace iperf_errno {
inline constexpr int kNone = 0;
// Parameter errors: what our server sends when record::Validate refuses a peer's parameters.
inline constexpr int kDuration = 5;        // IEDURATION
inline constexpr int kNumStreams = 6;      // IENUMSTREAMS
inline constexpr int kBlockSize = 7;       // IEBLOCKSIZE
inline constexpr int kBufSize = 8;         // IEBUFSIZE
inline constexpr int kInterval = 9;        // IEINTERVAL
inline constexpr int kMss = 10;            // IEMSS
inline constexpr int kOmit = 12;           // IEOMIT
inline constexpr int kUnimplemented = 13;  // IEUNIMP
inline constexpr int kFile = 14;           // IEFILE (-F could not be opened)
inline constexpr int kBurst = 15;          // IEBURST
inline constexpr int kEndConditions = 16;  // IEENDCONDITIONS
inline constexpr int kNoSctp = 18;         // IENOSCTP
inline constexpr int kUdpBlockSize = 20;   // IEUDPBLOCKSIZE
inline constexpr int kBadTos = 21;         // IEBADTOS
inline constexpr int kReverseBidir = 25;   // IEREVERSEBIDIR
inline constexpr int kTotalRate = 27;      // IETOTALRATE (--server-bitrate-limit, --max-rate)
// Test errors.
inline constexpr int kNewTest = 100;             // IENEWTEST
inline constexpr int kInitTest = 101;            // IEINITTEST
inline constexpr int kListen = 102;              // IELISTEN
inline constexpr int kConnect = 103;             // IECONNECT
inline constexpr int kAccept = 104;              // IEACCEPT
inline constexpr int kSendCookie = 105;          // IESENDCOOKIE
inline constexpr int kRecvCookie = 106;          // IERECVCOOKIE
inline constexpr int kCtrlWrite = 107;           // IECTRLWRITE
inline constexpr int kCtrlRead = 108;            // IECTRLREAD
inline constexpr int kCtrlClose = 109;           // IECTRLCLOSE
inline constexpr int kMessage = 110;             // IEMESSAGE
inline constexpr int kSendMessage = 111;         // IESENDMESSAGE
inline constexpr int kRecvMessage = 112;         // IERECVMESSAGE
inline constexpr int kSendParams = 113;          // IESENDPARAMS
inline constexpr int kRecvParams = 114;          // IERECVPARAMS
inline constexpr int kPackageResults = 115;      // IEPACKAGERESULTS
inline constexpr int kSendResults = 116;         // IESENDRESULTS
inline constexpr int kRecvResults = 117;         // IERECVRESULTS
inline constexpr int kSelect = 118;              // IESELECT
inline constexpr int kClientTerm = 119;          // IECLIENTTERM
inline constexpr int kServerTerm = 120;          // IESERVERTERM
inline constexpr int kAccessDenied = 121;        // IEACCESSDENIED
inline constexpr int kSetNoDelay = 122;          // IESETNODELAY
inline constexpr int kSetMss = 123;              // IESETMSS
inline constexpr int kSetBuf = 124;              // IESETBUF
inline constexpr int kSetTos = 125;              // IESETTOS
inline constexpr int kSetCos = 126;              // IESETCOS
inline constexpr int kSetFlow = 127;             // IESETFLOW
inline constexpr int kReuseAddr = 128;           // IEREUSEADDR
inline constexpr int kNonBlocking = 129;         // IENONBLOCKING
inline constexpr int kSetWindowSize = 130;       // IESETWINDOWSIZE
inline constexpr int kProtocol = 131;            // IEPROTOCOL
inline constexpr int kAffinity = 132;            // IEAFFINITY
inline constexpr int kDaemon = 133;              // IEDAEMON
inline constexpr int kSetCongestion = 134;       // IESETCONGESTION
inline constexpr int kPidFile = 135;             // IEPIDFILE
inline constexpr int kV6Only = 136;              // IEV6ONLY
inline constexpr int kSetSctpDisableFrag = 137;  // IESETSCTPDISABLEFRAG
inline constexpr int kSetSctpNumStreams = 138;   // IESETSCTPNSTREAM
inline constexpr int kSetSctpBindx = 139;        // IESETSCTPBINDX
inline constexpr int kSetPacing = 140;           // IESETPACING
inline constexpr int kSetBuf2 = 141;             // IESETBUF2
inline constexpr int kAuthTest = 142;            // IEAUTHTEST
inline constexpr int kBindDev = 143;             // IEBINDDEV
inline constexpr int kNoMsg = 144;               // IENOMSG
inline constexpr int kSetDontFragment = 145;     // IESETDONTFRAGMENT
inline constexpr int kCreateStream = 200;        // IECREATESTREAM
inline constexpr int kInitStream = 201;          // IEINITSTREAM
inline constexpr int kStreamListen = 202;        // IESTREAMLISTEN
inline constexpr int kStreamConnect = 203;       // IESTREAMCONNECT
inline constexpr int kStreamAccept = 204;        // IESTREAMACCEPT
inline constexpr int kStreamWrite = 205;         // IESTREAMWRITE
inline constexpr int kStreamRead = 206;          // IESTREAMREAD
inline constexpr int kStreamClose = 207;         // IESTREAMCLOSE
inline constexpr int kStreamId = 208;            // IESTREAMID
inline constexpr int kNewTimer = 300;            // IENEWTIMER
inline constexpr int kUpdateTimer = 301;         // IEUPDATETIMER
}  // namespace iperf_errno

// What a stock 3.12 client would print for this i_errno (its iperf_strerror text, without the
// errno suffix); "unknown iperf3 error <n>" for codes we do not know.
std::string IperfErrorText(int i_errno);

}  // namespace nicbench::protocol
