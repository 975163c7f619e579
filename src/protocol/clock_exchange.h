// The clocks' offset between two nicbench ends (docs/latency.md, "One-way delay"), as NTP
// estimates it: the client notes t1 and sends one byte on the control connection, the server
// notes t2 when the byte is read and t3 just before it answers with both, the client notes t4
// when the answer is read. All four are CLOCK_REALTIME (the two ends are different hosts in
// general, so no monotonic base is shared). For one exchange
//   offset = ((t2 - t1) + (t3 - t4)) / 2   (server clock minus client clock)
//   bound  = ((t4 - t1) - (t3 - t2)) / 2   (half the round trip)
// and the true offset lies within offset +- bound whatever the split of the round trip between
// the two directions, as long as neither direction took less than nothing. Several exchanges
// are made; the ones with the smallest round trip (the least queueing) are kept and their
// intervals intersected, which can only narrow the bound.
//
// On the wire, after the parameters (params.h Extension::clock_exchanges): the server sends
// State::kNicbenchClock, then for each exchange reads one byte and writes 16 (t2, t3: signed
// nanoseconds since the epoch, big-endian). A timestamped request/response response begins with
// the same 16 bytes (PutStamps).
//
// Thread safety: pure functions, and I/O on the caller's descriptor.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "base/result.h"
#include "record/run_record.h"

namespace nicbench::protocol {

// Exchanges a client asks for, and the most a server makes.
inline constexpr uint32_t kClockExchanges = 8;
inline constexpr uint32_t kMaxClockExchanges = 64;
// Of those, the ones with the smallest round trip kept for the estimate.
inline constexpr size_t kClockExchangesKept = 4;
// Bytes of the server's two timestamps (an exchange's answer, a stamped response's head).
inline constexpr size_t kStampBytes = 16;

inline int64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// One exchange: client send, server receive, server send, client receive; ns of each end's
// CLOCK_REALTIME.
struct ClockSample {
  int64_t t1 = 0, t2 = 0, t3 = 0, t4 = 0;
};

// The round trip less the server's time, ns; negative when a clock stepped during it.
int64_t RoundTripNs(const ClockSample& s);

// The offset from the `keep` samples with the smallest round trip (those with a negative one
// left out): the middle of their intervals' intersection, half its width as the bound. When the
// intervals do not meet (a clock slewed or stepped between exchanges), the single best
// sample's. An error when no sample is usable.
Result<record::ClockOffset> EstimateClockOffset(std::vector<ClockSample> samples,
                                                size_t keep = kClockExchangesKept);

// t2, t3 into out[0..16) and back (big-endian).
void PutStamps(uint8_t* out, int64_t t2, int64_t t3);
void GetStamps(const uint8_t* in, int64_t* t2, int64_t* t3);

// The client's side: `n` exchanges, each bounded by what is left of `timeout`.
Result<std::vector<ClockSample>> RunClockExchanges(int fd, uint32_t n,
                                                   std::chrono::milliseconds timeout);
// The server's side, after it sent State::kNicbenchClock.
Status ServeClockExchanges(int fd, uint32_t n, std::chrono::milliseconds timeout);

}  // namespace nicbench::protocol
