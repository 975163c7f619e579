#include "protocol/clock_exchange.h"

#include <algorithm>

#include "protocol/control_channel.h"

namespace nicbench::protocol {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds LeftOf(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return std::max(left, std::chrono::milliseconds(0));
}

}  // namespace

int64_t RoundTripNs(const ClockSample& s) { return (s.t4 - s.t1) - (s.t3 - s.t2); }

Result<record::ClockOffset> EstimateClockOffset(std::vector<ClockSample> samples, size_t keep) {
  const size_t made = samples.size();
  std::erase_if(samples, [](const ClockSample& s) { return RoundTripNs(s) < 0 || s.t3 < s.t2; });
  if (samples.empty()) return Fail("no usable clock exchange (a clock stepped during each)");
  std::sort(samples.begin(), samples.end(), [](const ClockSample& a, const ClockSample& b) {
    return RoundTripNs(a) < RoundTripNs(b);
  });
  samples.resize(std::min(samples.size(), std::max<size_t>(keep, 1)));
  // Differences first, in integers: a double holds an epoch's nanoseconds only to 256 ns.
  auto offset_of = [](const ClockSample& s) {
    return (static_cast<double>(s.t2 - s.t1) + static_cast<double>(s.t3 - s.t4)) / 2;
  };
  auto bound_of = [](const ClockSample& s) { return static_cast<double>(RoundTripNs(s)) / 2; };
  double lo = offset_of(samples[0]) - bound_of(samples[0]);
  double hi = offset_of(samples[0]) + bound_of(samples[0]);
  for (const ClockSample& s : samples) {
    lo = std::max(lo, offset_of(s) - bound_of(s));
    hi = std::min(hi, offset_of(s) + bound_of(s));
  }
  record::ClockOffset out;
  out.exchanges = static_cast<uint32_t>(made);
  out.kept = static_cast<uint32_t>(samples.size());
  if (lo <= hi) {
    out.offset_us = (lo + hi) / 2 / 1000;
    out.bound_us = (hi - lo) / 2 / 1000;
  } else {
    out.offset_us = offset_of(samples[0]) / 1000;
    out.bound_us = bound_of(samples[0]) / 1000;
    out.kept = 1;
  }
  return out;
}

void PutStamps(uint8_t* out, int64_t t2, int64_t t3) {
  const uint64_t v[2] = {static_cast<uint64_t>(t2), static_cast<uint64_t>(t3)};
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < 8; ++i) out[k * 8 + i] = static_cast<uint8_t>(v[k] >> (56 - 8 * i));
  }
}

void GetStamps(const uint8_t* in, int64_t* t2, int64_t* t3) {
  uint64_t v[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < 8; ++i) v[k] = (v[k] << 8) | in[k * 8 + i];
  }
  *t2 = static_cast<int64_t>(v[0]);
  *t3 = static_cast<int64_t>(v[1]);
}

Result<std::vector<ClockSample>> RunClockExchanges(int fd, uint32_t n,
                                                   std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  std::vector<ClockSample> out;
  for (uint32_t i = 0; i < n; ++i) {
    ClockSample s;
    const uint8_t ask = 0;
    uint8_t answer[kStampBytes];
    s.t1 = RealtimeNs();
    if (auto w = WriteAll(fd, &ask, 1, LeftOf(deadline), "a clock exchange"); !w) {
      return tl::unexpected(w.error());
    }
    if (auto r = ReadExact(fd, answer, sizeof answer, LeftOf(deadline), "a clock exchange"); !r) {
      return tl::unexpected(r.error());
    }
    s.t4 = RealtimeNs();
    GetStamps(answer, &s.t2, &s.t3);
    out.push_back(s);
  }
  return out;
}

Status ServeClockExchanges(int fd, uint32_t n, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t ask = 0;
    uint8_t answer[kStampBytes];
    if (auto r = ReadExact(fd, &ask, 1, LeftOf(deadline), "a clock exchange"); !r) return r;
    const int64_t t2 = RealtimeNs();
    PutStamps(answer, t2, RealtimeNs());
    if (auto w = WriteAll(fd, answer, sizeof answer, LeftOf(deadline), "a clock exchange"); !w) {
      return w;
    }
  }
  return Ok();
}

}  // namespace nicbench::protocol
