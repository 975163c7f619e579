// The printed lines of classic ttcp (SGI rev 1.12), as pure functions of given values so every
// digit can be tested: rate units (outfmt), elapsed time (psecs), the rusage string (prusage),
// the header and the statistics lines. Each returned line ends in "\n". Thread-safe.
#pragma once

#include <sys/resource.h>
#include <sys/time.h>

#include <cstdint>
#include <string>

#include "ttcp/options.h"

namespace nicbench::ttcp {

// "%.2f <unit>" for a rate in bytes per second, 1024-based: k Kbit, K KB, m Mbit, M MB,
// g Gbit, G GB; any other letter prints as K. The caller appends "/sec" or "/cpu sec".
std::string OutFmt(double bytes_per_second, char format);

// Whole seconds as [h:]m:ss: 9 -> "0:09", 75 -> "1:15", 3725 -> "1:02:05".
std::string Psecs(long seconds);

// The BSD template "%Uuser %Ssys %Ereal %P %Xi+%Dd %Mmaxrss %F+%Rpf %Ccsw" filled from the
// rusage before (r0) and after (r1) and the wall times begin/end. Faithful to the original:
// user/sys truncated to tenths, %P in integer percent of hundredths, maxrss is r1's halved.
std::string Prusage(const rusage& r0, const rusage& r1, const timeval& end, const timeval& begin);

// end - begin in seconds (microsecond borrow as tvsub does).
double RealSeconds(const timeval& end, const timeval& begin);

// CPU seconds (user + system) used between r0 and r1, floored at 0.00001 as the original.
double CpuSeconds(const rusage& r0, const rusage& r1);

// "ttcp-t: buflen=..., nbuf=..., align=A/O, port=P[, sockbufsize=B]  tcp  -> host" (or the
// receiver's "  tcp" ending).
std::string HeaderLine(const TtcpOptions& options);

// Everything the statistics lines need, measured by the transfer.
struct StatsInput {
  bool transmit = false;
  double nbytes = 0;        // a double, as in SGI 1.12
  double real_seconds = 0;  // clamped to 0.001 when <= 0
  double cpu_seconds = 0;   // clamped to 0.001 when <= 0
  int64_t num_calls = 0;    // network read/write/sendto/recvfrom calls
  std::string rusage_text;  // Prusage() of the same snapshots
  char rate_format = 'K';
  bool verbose = false;  // adds the CPU line and the buffer-address line
  uintptr_t buffer_address = 0;
};

// "%d I/O calls, msec/call = %.2f, calls/sec = %.2f" values: msec/call keeps the historical
// factor 1024 (not 1000), so it reads about 2.4% high.
double MsecPerCall(double real_seconds, int64_t num_calls);

// The result line ("... +++"), the -v CPU line, the I/O-calls line, the rusage line and the -v
// buffer-address line, in that order.
std::string StatsLines(const StatsInput& in);

}  // namespace nicbench::ttcp
