// The texts a stock iperf 3.12 client prints for each i_errno (its iperf_strerror), so that our
// client reports a stock server's SERVER_ERROR the way iperf3 users know it.
#include <fmt/format.h>

#include "protocol/wire.h"

namespace nicbench::protocol {
namespace {

struct ErrorText {
  int code;
  const char* text;
};

constexpr ErrorText kTexts[] = {
    {iperf_errno::kNone, "no error"},
    {iperf_errno::kDuration, "test duration too long"},
    {iperf_errno::kNumStreams, "number of parallel streams too large"},
    {iperf_errno::kBlockSize, "block size too large"},
    {iperf_errno::kBufSize, "socket buffer size too large"},
    {iperf_errno::kInterval, "invalid report interval"},
    {iperf_errno::kMss, "TCP MSS too large"},
    {iperf_errno::kOmit, "bogus value for --omit"},
    {iperf_errno::kUnimplemented, "an option you are trying to set is not implemented yet"},
    {iperf_errno::kBurst, "invalid burst count"},
    {iperf_errno::kEndConditions, "only one test end condition (-t, -n, -k) may be specified"},
    {iperf_errno::kNoSctp, "no SCTP support available"},
    {iperf_errno::kUdpBlockSize, "block size invalid"},
    {iperf_errno::kBadTos, "bad TOS value (must be between 0 and 255 inclusive)"},
    {iperf_errno::kReverseBidir, "cannot be both reverse and bidirectional"},
    {iperf_errno::kTotalRate, "total required bandwidth is larger than server limit"},
    {iperf_errno::kNewTest, "unable to create a new test"},
    {iperf_errno::kInitTest, "test initialization failed"},
    {iperf_errno::kListen, "unable to start listener for connections"},
    {iperf_errno::kConnect, "unable to connect to server"},
    {iperf_errno::kAccept, "unable to accept connection from client"},
    {iperf_errno::kSendCookie, "unable to send cookie to server"},
    {iperf_errno::kRecvCookie, "unable to receive cookie at server"},
    {iperf_errno::kCtrlWrite, "unable to write to the control socket"},
    {iperf_errno::kCtrlRead, "unable to read from the control socket"},
    {iperf_errno::kCtrlClose, "control socket has closed unexpectedly"},
    {iperf_errno::kMessage,
     "received an unknown control message (ensure other side is iperf3 and not iperf)"},
    {iperf_errno::kSendMessage, "unable to send control message"},
    {iperf_errno::kRecvMessage, "unable to receive control message"},
    {iperf_errno::kSendParams, "unable to send parameters to server"},
    {iperf_errno::kRecvParams, "unable to receive parameters from client"},
    {iperf_errno::kPackageResults, "unable to package results"},
    {iperf_errno::kSendResults, "unable to send results"},
    {iperf_errno::kRecvResults, "unable to receive results"},
    {iperf_errno::kSelect, "select failed"},
    {iperf_errno::kClientTerm, "the client has terminated"},
    {iperf_errno::kServerTerm, "the server has terminated"},
    {iperf_errno::kAccessDenied, "the server is busy running a test. try again later"},
    {iperf_errno::kSetNoDelay, "unable to set TCP/SCTP NODELAY"},
    {iperf_errno::kSetMss, "unable to set TCP/SCTP MSS"},
    {iperf_errno::kSetBuf, "unable to set socket buffer size"},
    {iperf_errno::kSetTos, "unable to set IP TOS"},
    {iperf_errno::kSetCos, "unable to set IPv6 traffic class"},
    {iperf_errno::kSetFlow, "unable to set IPv6 flow label"},
    {iperf_errno::kReuseAddr, "unable to reuse address on socket"},
    {iperf_errno::kNonBlocking, "unable to set socket to non-blocking"},
    {iperf_errno::kSetWindowSize, "unable to set socket window size"},
    {iperf_errno::kProtocol, "protocol does not exist"},
    {iperf_errno::kAffinity, "unable to set CPU affinity"},
    {iperf_errno::kDaemon, "unable to become a daemon"},
    {iperf_errno::kSetCongestion,
     "unable to set TCP_CONGESTION: Supplied congestion control algorithm not supported on "
     "this host"},
    {iperf_errno::kPidFile, "unable to write PID file"},
    {iperf_errno::kFile, "unable to open -F file"},
    {iperf_errno::kV6Only, "Unable to set/reset IPV6_V6ONLY"},
    {iperf_errno::kSetSctpDisableFrag, "unable to set SCTP_DISABLE_FRAGMENTS"},
    {iperf_errno::kSetSctpNumStreams, "unable to set SCTP_INIT num of SCTP streams"},
    {iperf_errno::kSetPacing, "unable to set socket pacing"},
    {iperf_errno::kSetBuf2, "socket buffer size not set correctly"},
    {iperf_errno::kAuthTest, "test authorization failed"},
    {iperf_errno::kBindDev, "Unable to bind-to-device (check perror, maybe permissions?)"},
    {iperf_errno::kNoMsg, "idle timeout for receiving data"},
    {iperf_errno::kSetDontFragment, "unable to set IP Do-Not-Fragment flag"},
    {iperf_errno::kCreateStream, "unable to create a new stream"},
    {iperf_errno::kInitStream, "unable to initialize stream"},
    {iperf_errno::kStreamListen, "unable to start stream listener"},
    {iperf_errno::kStreamConnect, "unable to connect stream"},
    {iperf_errno::kStreamAccept, "unable to accept stream connection"},
    {iperf_errno::kStreamWrite, "unable to write to stream socket"},
    {iperf_errno::kStreamRead, "unable to read from stream socket"},
    {iperf_errno::kStreamClose, "stream socket has closed unexpectedly"},
    {iperf_errno::kStreamId, "stream has an invalid id"},
    {iperf_errno::kNewTimer, "unable to create new timer"},
    {iperf_errno::kUpdateTimer, "unable to update timer"},
};

}  // namespace

std::string IperfErrorText(int i_errno) {
  for (const ErrorText& entry : kTexts) {
    if (entry.code == i_errno) return entry.text;
  }
  return fmt::format("unknown iperf3 error {}", i_errno);
}

}  // namespace nicbench::protocol
