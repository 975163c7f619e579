// The data phase of classic ttcp on an already set-up socket: source/sink loops, normal mode
// (stdin -> network -> stdout), the UDP sentinels, and the I/O-call count. Behaviour follows
// SGI rev 1.12 (see docs/ttcp.md); the only addition is the UDP receiver's idle timeout.
// One Transfer per run; not thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

#include "base/result.h"
#include "ttcp/options.h"
#include "ttcp/socket.h"
#include "ttcp/timer.h"

namespace nicbench::ttcp {

class Transfer {
 public:
  // REQUIRES: `fd` is connected (TCP transmitter), accepted (TCP receiver) or bound (UDP);
  // `peer` is the UDP transmitter's destination; `buffer` holds options.buflen bytes and
  // outlives the Transfer.
  Transfer(const TtcpOptions& options, int fd, const SockAddr& peer, char* buffer);

  // Starts the timer and moves the data. A failed network, stdin or stdout call ends it with
  // Error{"IO", errno}, after which the original prints no statistics.
  Status Run();

  // The UDP transmitter's four extra end sentinels, sent after the timer stopped in case the
  // first end sentinel was lost. Counted in num_calls(); failures are ignored, as originally.
  void SendTrailingSentinels();

  double nbytes() const { return nbytes_; }
  int64_t num_calls() const { return num_calls_; }
  const TimerSnapshot& start() const { return start_; }
  // Set when the idle timeout ended a UDP receiver: the time of its last datagram, which then
  // closes the measurement instead of the moment the timeout fired.
  const std::optional<timeval>& idle_end() const { return idle_end_; }

 private:
  Result<ssize_t> NetRead();
  Result<ssize_t> NetWrite(const char* data, size_t count);
  Result<ssize_t> ReadFullBlock();
  // True when no datagram arrived within the idle timeout.
  Result<bool> IdleTimedOut();
  void Touch(ssize_t count);

  Status Source();
  Status TcpSink();
  Status UdpReceive();
  Status NormalTransmit();
  Status NormalReceive();

  const TtcpOptions& options_;
  int fd_;
  const SockAddr& peer_;
  char* buffer_;
  double nbytes_ = 0;
  int64_t num_calls_ = 0;
  uint64_t touch_sum_ = 0;
  TimerSnapshot start_;
  bool seen_datagram_ = false;
  timeval last_datagram_{};
  std::optional<timeval> idle_end_;
};

}  // namespace nicbench::ttcp
