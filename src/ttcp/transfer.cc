#include "ttcp/transfer.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <thread>

namespace nicbench::ttcp {
namespace {

// Datagrams of this size or less are sentinels, never data.
constexpr ssize_t kSentinelBytes = 4;
// The original's back-off when the interface queue is full: select() for 18 ms, then retry.
constexpr auto kEnobufsBackoff = std::chrono::milliseconds(18);

}  // namespace

Transfer::Transfer(const TtcpOptions& options, int fd, const SockAddr& peer, char* buffer)
    : options_(options), fd_(fd), peer_(peer), buffer_(buffer) {}

void Transfer::Touch(ssize_t count) {
  uint64_t sum = 0;
  for (ssize_t i = 0; i < count; ++i) sum += static_cast<unsigned char>(buffer_[i]);
  touch_sum_ += sum;
}

// -B: keep reading until the buffer is full or EOF, counting every read() (BRL's mread).
Result<ssize_t> Transfer::ReadFullBlock() {
  size_t want = static_cast<size_t>(options_.buflen);
  size_t have = 0;
  while (have < want) {
    ssize_t n = read(fd_, buffer_ + have, want - have);
    ++num_calls_;
    if (n < 0) return FailErrno("IO");
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(have);
}

Result<ssize_t> Transfer::NetRead() {
  ssize_t n;
  if (options_.udp) {
    n = recvfrom(fd_, buffer_, static_cast<size_t>(options_.buflen), 0, nullptr, nullptr);
    ++num_calls_;
    if (n < 0) return FailErrno("IO");
    seen_datagram_ = true;
    if (options_.idle_timeout_seconds) last_datagram_ = MonotonicNow();
    return n;
  }
  if (options_.full_blocks) {
    auto block = ReadFullBlock();
    if (!block) return block;
    n = *block;
  } else {
    n = read(fd_, buffer_, static_cast<size_t>(options_.buflen));
    ++num_calls_;
    if (n < 0) return FailErrno("IO");
  }
  if (options_.touch) Touch(n);
  return n;
}

Result<ssize_t> Transfer::NetWrite(const char* data, size_t count) {
  if (!options_.udp) {
    ssize_t n = write(fd_, data, count);
    ++num_calls_;
    if (n < 0) return FailErrno("IO");
    return n;
  }
  while (true) {
    ssize_t n = sendto(fd_, data, count, 0, peer_.get(), peer_.length);
    ++num_calls_;
    if (n >= 0) return n;
    if (errno != ENOBUFS) return FailErrno("IO");
    std::this_thread::sleep_for(kEnobufsBackoff);
  }
}

Result<bool> Transfer::IdleTimedOut() {
  if (!options_.idle_timeout_seconds || !seen_datagram_) return false;
  int ms = static_cast<int>(std::ceil(*options_.idle_timeout_seconds * 1000.0));
  pollfd p{fd_, POLLIN, 0};
  while (true) {
    int rc = poll(&p, 1, ms);
    if (rc > 0) return false;
    if (rc == 0) {
      idle_end_ = last_datagram_;
      return true;
    }
    if (errno != EINTR) return FailErrno("IO");
  }
}

Status Transfer::Source() {
  // The printable ASCII characters from ' ' to '~', over and over.
  for (int i = 0; i < options_.buflen; ++i) buffer_[i] = static_cast<char>(' ' + i % 95);
  size_t len = static_cast<size_t>(options_.buflen);
  if (options_.udp) {
    auto start = NetWrite(buffer_, kSentinelBytes);
    if (!start) return tl::unexpected(start.error());
  }
  for (int i = 0; i < options_.nbuf; ++i) {
    auto n = NetWrite(buffer_, len);
    if (!n) return tl::unexpected(n.error());
    if (*n != static_cast<ssize_t>(len)) break;
    nbytes_ += static_cast<double>(len);
  }
  if (options_.udp) {
    auto end = NetWrite(buffer_, kSentinelBytes);
    if (!end) return tl::unexpected(end.error());
  }
  return Ok();
}

Status Transfer::TcpSink() {
  while (true) {
    auto n = NetRead();
    if (!n) return tl::unexpected(n.error());
    if (*n <= 0) return Ok();
    nbytes_ += static_cast<double>(*n);
  }
}

// Sink and normal-mode UDP receive. In sink mode the first sentinel restarts the clock and the
// second ends the run; in normal mode every datagram, tiny ones included, goes to stdout and
// only an empty datagram, an error or the idle timeout ends it.
Status Transfer::UdpReceive() {
  bool going = false;
  while (true) {
    auto timed_out = IdleTimedOut();
    if (!timed_out) return tl::unexpected(timed_out.error());
    if (*timed_out) return Ok();
    auto n = NetRead();
    if (!n) return tl::unexpected(n.error());
    if (*n <= 0) return Ok();
    if (!options_.sink_mode) {
      ssize_t written = write(1, buffer_, static_cast<size_t>(*n));
      if (written < 0) return FailErrno("IO");
      if (written != *n) return Ok();
      nbytes_ += static_cast<double>(*n);
    } else if (*n <= kSentinelBytes) {
      if (going) return Ok();
      going = true;
      start_ = StartTimer();
    } else {
      nbytes_ += static_cast<double>(*n);
    }
  }
}

Status Transfer::NormalTransmit() {
  while (true) {
    ssize_t got = read(0, buffer_, static_cast<size_t>(options_.buflen));
    if (got < 0) return FailErrno("IO");
    if (got == 0) return Ok();
    auto sent = NetWrite(buffer_, static_cast<size_t>(got));
    if (!sent) return tl::unexpected(sent.error());
    if (*sent != got) return Ok();
    nbytes_ += static_cast<double>(got);
  }
}

Status Transfer::NormalReceive() {
  while (true) {
    auto n = NetRead();
    if (!n) return tl::unexpected(n.error());
    if (*n <= 0) return Ok();
    ssize_t written = write(1, buffer_, static_cast<size_t>(*n));
    if (written < 0) return FailErrno("IO");
    if (written != *n) return Ok();
    nbytes_ += static_cast<double>(*n);
  }
}

Status Transfer::Run() {
  start_ = StartTimer();
  if (options_.transmit) return options_.sink_mode ? Source() : NormalTransmit();
  if (options_.udp) return UdpReceive();
  return options_.sink_mode ? TcpSink() : NormalReceive();
}

void Transfer::SendTrailingSentinels() {
  for (int i = 0; i < 4; ++i) (void)NetWrite(buffer_, kSentinelBytes);
}

}  // namespace nicbench::ttcp
