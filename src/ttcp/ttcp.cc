#include "ttcp/ttcp.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "ttcp/format.h"
#include "ttcp/socket.h"
#include "ttcp/timer.h"
#include "ttcp/transfer.h"

namespace nicbench::ttcp {
namespace {

// Prints lines with the side's prefix, each flushed at once so that stats and diagnostics keep
// their order when both streams are the same file, and so that normal-mode data written to
// fd 1 never overtakes a header on stdout.
class Printer {
 public:
  Printer(const TtcpOptions& options, const Streams& streams)
      : prefix_(options.transmit ? "ttcp-t" : "ttcp-r"), streams_(streams) {}

  void Stats(const std::string& text) const { Put(streams_.stats, text); }
  // mes(): "ttcp-t: socket".
  void Progress(const std::string& what) const {
    Put(streams_.diagnostics, fmt::format("{}: {}\n", prefix_, what));
  }
  // err(): "ttcp-t: <what>: <strerror>" then "errno=N"; the caller exits 1.
  int Failure(const Error& error) const {
    std::string text = error.message + ": " + std::strerror(error.sys_errno);
    if (error.sys_errno == 0 && error.message.find(':') != std::string::npos) {
      text = error.message;  // a resolver failure already carries its reason
    }
    Put(streams_.diagnostics, fmt::format("{}: {}\nerrno={}\n", prefix_, text, error.sys_errno));
    return kExitFailure;
  }

 private:
  static void Put(FILE* stream, const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), stream);
    std::fflush(stream);
  }

  const char* prefix_;
  const Streams& streams_;
};

// malloc(buflen + align), then moved forward to an address == offset (mod align), as -A/-O ask.
struct AlignedBuffer {
  std::unique_ptr<char, decltype(&std::free)> block{nullptr, &std::free};
  char* data = nullptr;
};

Result<AlignedBuffer> AllocateBuffer(const TtcpOptions& o) {
  AlignedBuffer b;
  size_t size = static_cast<size_t>(o.buflen) + static_cast<size_t>(o.align);
  b.block.reset(static_cast<char*>(std::malloc(size)));
  if (!b.block) return FailErrno("malloc");
  b.data = b.block.get();
  if (o.align != 0) {
    auto align = static_cast<uintptr_t>(o.align);
    uintptr_t address = reinterpret_cast<uintptr_t>(b.data);
    b.data += (align - address % align + static_cast<uintptr_t>(o.offset)) % align;
  }
  return b;
}

Result<Fd> MakeSocket(const TtcpOptions& o, int family) {
  Fd fd(socket(family, o.udp ? SOCK_DGRAM : SOCK_STREAM, 0));
  if (fd.get() < 0) return FailErrno("socket");
  return fd;
}

Status ApplyBufferSize(const TtcpOptions& o, int fd, const Printer& out) {
  if (o.sockbufsize == 0) return Ok();
  if (o.transmit) {
    auto set = SetIntOption(fd, SOL_SOCKET, SO_SNDBUF, o.sockbufsize, "setsockopt: sndbuf");
    if (!set) return set;
    out.Progress("sndbuf");
  } else {
    auto set = SetIntOption(fd, SOL_SOCKET, SO_RCVBUF, o.sockbufsize, "setsockopt: rcvbuf");
    if (!set) return set;
    out.Progress("rcvbuf");
  }
  return Ok();
}

// socket, -b, and for TCP -d, -D and connect, each with its progress line.
Result<Fd> OpenTransmitter(const TtcpOptions& o, const SockAddr& peer, const Printer& out) {
  auto fd = MakeSocket(o, peer.family());
  if (!fd) return fd;
  out.Progress("socket");
  if (auto set = ApplyBufferSize(o, fd->get(), out); !set) return tl::unexpected(set.error());
  if (o.udp) return fd;
  if (o.so_debug) {
    auto set = SetIntOption(fd->get(), SOL_SOCKET, SO_DEBUG, 1, "setsockopt");
    if (!set) return tl::unexpected(set.error());
  }
  if (o.nodelay) {
    auto set = SetIntOption(fd->get(), IPPROTO_TCP, TCP_NODELAY, 1, "setsockopt: nodelay");
    if (!set) return tl::unexpected(set.error());
    out.Progress("nodelay");
  }
  if (connect(fd->get(), peer.get(), peer.length) < 0) return FailErrno("connect");
  out.Progress("connect");
  return fd;
}

// TCP: listen, -d, accept exactly one connection and print where it came from.
Result<Fd> AcceptOne(const TtcpOptions& o, int listener, const Printer& out) {
  (void)listen(listener, 0);  // unchecked in the original; a failure surfaces at accept
  if (o.so_debug) {
    auto set = SetIntOption(listener, SOL_SOCKET, SO_DEBUG, 1, "setsockopt");
    if (!set) return tl::unexpected(set.error());
  }
  SockAddr peer;
  peer.length = sizeof peer.storage;
  Fd conn(accept(listener, peer.get(), &peer.length));
  if (conn.get() < 0) return FailErrno("accept");
  peer.length = sizeof peer.storage;
  if (getpeername(conn.get(), peer.get(), &peer.length) < 0) return FailErrno("getpeername");
  out.Progress("accept from " + NumericHost(peer));
  return conn;
}

// socket, bind, -b, and for TCP the single accept. Returns the socket data moves on.
Result<Fd> OpenReceiver(const TtcpOptions& o, const Printer& out) {
  SockAddr me = WildcardAddress(o.port, o.family);
  auto fd = MakeSocket(o, me.family());
  if (!fd) return fd;
  out.Progress("socket");
  // TCP only: lets a receiver restart while an old connection on the port sits in TIME_WAIT,
  // yet still fails on a port someone listens on. (For UDP it would allow two receivers.)
  if (!o.udp) (void)SetIntOption(fd->get(), SOL_SOCKET, SO_REUSEADDR, 1, "setsockopt");
  if (bind(fd->get(), me.get(), me.length) < 0) return FailErrno("bind");
  if (auto set = ApplyBufferSize(o, fd->get(), out); !set) return tl::unexpected(set.error());
  if (o.udp) return fd;
  return AcceptOne(o, fd->get(), out);
}

std::string StatsText(const TtcpOptions& o, const Transfer& t, const TimerSnapshot& end,
                      const char* buffer) {
  StatsInput in;
  in.transmit = o.transmit;
  in.nbytes = t.nbytes();
  in.real_seconds = RealSeconds(end.wall, t.start().wall);
  in.cpu_seconds = CpuSeconds(t.start().usage, end.usage);
  in.num_calls = t.num_calls();
  in.rusage_text = Prusage(t.start().usage, end.usage, end.wall, t.start().wall);
  in.rate_format = o.rate_format;
  in.verbose = o.verbose;
  in.buffer_address = reinterpret_cast<uintptr_t>(buffer);
  return StatsLines(in);
}

}  // namespace

int RunTtcp(const TtcpOptions& o, const Streams& streams, Moved* result) {
  Printer out(o, streams);
  // A vanished TCP peer must surface as EPIPE from write ("IO"), not kill us silently.
  signal(SIGPIPE, SIG_IGN);
  SockAddr peer;
  if (o.transmit) {
    auto resolved = ResolvePeer(o.host, o.port, o.family);
    if (!resolved) return out.Failure(resolved.error());
    peer = *resolved;
  }
  auto buffer = AllocateBuffer(o);
  if (!buffer) return out.Failure(buffer.error());
  out.Stats(HeaderLine(o));
  auto fd = o.transmit ? OpenTransmitter(o, peer, out) : OpenReceiver(o, out);
  if (!fd) return out.Failure(fd.error());

  Transfer transfer(o, fd->get(), peer, buffer->data);
  if (auto moved = transfer.Run(); !moved) return out.Failure(moved.error());
  TimerSnapshot end = StopTimer();
  if (transfer.idle_end()) {
    end.wall = *transfer.idle_end();
    out.Progress(
        fmt::format("idle timeout: no datagram for {:g} s, ending without the end sentinel",
                    *o.idle_timeout_seconds));
  }
  if (o.udp && o.transmit) transfer.SendTrailingSentinels();
  out.Stats(StatsText(o, transfer, end, buffer->data));
  if (result != nullptr) {
    result->bytes = transfer.nbytes();
    result->real_seconds = RealSeconds(end.wall, transfer.start().wall);
    if (o.transmit) result->peer = NumericHost(peer);
  }
  return kExitOk;
}

}  // namespace nicbench::ttcp
