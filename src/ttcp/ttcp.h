// Classic ttcp (SGI rev 1.12), run end to end: socket set-up with the original's progress and
// error lines, the transfer, and the statistics. The one public entry point of the ttcp layer.
// Not thread-safe (one run per process, as the original; it ignores SIGPIPE).
#pragma once

#include <cstdio>
#include <string>

#include "ttcp/options.h"

namespace nicbench::ttcp {

// The original exits with 1 for a usage error and for every err() path.
constexpr int kExitFailure = 1;
constexpr int kExitOk = 0;

// Where lines go. `stats` takes the header and the statistics (stderr by default, stdout with
// --stats-stdout); `diagnostics` takes the socket/connect/accept lines and errors (stderr).
// Data in normal mode always uses file descriptors 0 and 1 directly.
struct Streams {
  FILE* stats = stderr;
  FILE* diagnostics = stderr;
};

// What a finished transfer moved, for a caller that says more about it (--nic-note).
struct Moved {
  double bytes = 0;
  double real_seconds = 0;
  std::string peer;  // the transmitter's peer, numeric; "" for a receiver
};

// Runs one transfer; returns the exit status (kExitOk, or kExitFailure after printing the
// original's "ttcp-t: connect: Connection refused" / "errno=111" pair).
// `moved`, when given, is filled after a transfer that succeeded.
int RunTtcp(const TtcpOptions& options, const Streams& streams, Moved* moved = nullptr);

}  // namespace nicbench::ttcp
