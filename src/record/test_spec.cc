#include "record/test_spec.h"

#include <algorithm>

#include <fmt/format.h>

namespace nicbench::record {
namespace {

SpecError Violation(SpecViolation kind, std::string message) {
  return SpecError{kind, std::move(message)};
}

// The request/response rules; the parallel and block-size checks of bulk tests do not apply.
std::optional<SpecError> ValidateRr(const TestSpec& spec, const SpecLimits& limits) {
  const RrSpec& rr = spec.rr;
  if (spec.parallel < 1 || spec.parallel > limits.max_rr_flows) {
    return Violation(SpecViolation::kParallel,
                     fmt::format("request/response flows (-P) {} out of range 1..{}", spec.parallel,
                                 limits.max_rr_flows));
  }
  if (rr.request_bytes == 0 || rr.response_bytes == 0) {
    return Violation(SpecViolation::kBlockSize,
                     "request and response sizes (-l REQ,RESP) must be at least 1 byte");
  }
  const uint32_t max = spec.transport == Transport::kUdp
                           ? std::min(limits.max_block_bytes, kMaxUdpRrMessageBytes)
                           : limits.max_block_bytes;
  if (rr.request_bytes > max || rr.response_bytes > max) {
    return Violation(SpecViolation::kBlockSize,
                     fmt::format("request/response size {},{} exceeds the limit of {} bytes",
                                 rr.request_bytes, rr.response_bytes, max));
  }
  if (spec.direction != Direction::kForward) {
    return Violation(SpecViolation::kOther,
                     "--rr/--crr cannot be used with -R or --bidir: a transaction goes both ways");
  }
  if (rr.mode == RrMode::kCrr && spec.transport == Transport::kUdp) {
    return Violation(SpecViolation::kOther, "--crr is TCP only (UDP has no connection)");
  }
  if (rr.burst < 1 || rr.burst > kMaxRrBurst) {
    return Violation(SpecViolation::kOther,
                     fmt::format("--rr-burst {} out of range 1..{}", rr.burst, kMaxRrBurst));
  }
  // A UDP response is matched by the first min(request, response, 8) bytes (rr_flow_udp.cc):
  // one byte tells 256 sequence numbers apart, enough for 128 in flight.
  if (spec.transport == Transport::kUdp && std::min(rr.request_bytes, rr.response_bytes) == 1 &&
      rr.burst > 128) {
    return Violation(SpecViolation::kOther,
                     "--rr-burst above 128 needs -l of at least 2,2 with 1-byte UDP messages");
  }
  if (rr.timeout_ms < 1 || rr.timeout_ms > kMaxRrTimeoutMs) {
    return Violation(SpecViolation::kOther, fmt::format("--rr-timeout {} ms out of range 1..{}",
                                                        rr.timeout_ms, kMaxRrTimeoutMs));
  }
  if (rr.spin_us > kMaxRrSpinUs) {
    return Violation(SpecViolation::kOther,
                     fmt::format("--rr-spin {} us out of range 0..{}", rr.spin_us, kMaxRrSpinUs));
  }
  if (rr.rate_per_second > kMaxRrRate) {
    return Violation(SpecViolation::kOther, fmt::format("--rr-rate {} out of range 1..{}",
                                                        rr.rate_per_second, kMaxRrRate));
  }
  if (rr.rate_per_second != 0 && (spec.transport != Transport::kTcp || spec.parallel != 1)) {
    return Violation(SpecViolation::kOther,
                     "--rr-rate paces one TCP flow: it needs -P 1 and no -u");
  }
  if (spec.rate_bits_per_second != 0 || spec.zero_copy != ZeroCopy::kOff || spec.skip_rx_copy) {
    return Violation(SpecViolation::kOther, "--rr/--crr do not use -b, -Z or --skip-rx-copy");
  }
  if (spec.bytes != 0) {
    return Violation(SpecViolation::kOther,
                     "a request/response test counts transactions (-n N), not bytes");
  }
  return std::nullopt;
}

// How long the test runs and how often it reports.
std::optional<SpecError> ValidateTiming(const TestSpec& spec, const SpecLimits& limits) {
  if (spec.duration.count() < 0 || spec.omit.count() < 0) {
    return Violation(SpecViolation::kDuration, "duration and omit must not be negative");
  }
  if (spec.duration + spec.omit > limits.max_duration) {
    return Violation(SpecViolation::kDuration,
                     fmt::format("duration {} s exceeds the limit of {} s",
                                 (spec.duration + spec.omit).count() / 1000.0,
                                 limits.max_duration.count() / 1000.0));
  }
  if (spec.interval.count() != 0 && spec.interval.count() < 100) {
    return Violation(SpecViolation::kOther, "interval must be 0 (off) or at least 0.1 s");
  }
  return std::nullopt;
}

// The bulk block length (a request/response test sizes its messages in ValidateRr).
std::optional<SpecError> ValidateBlock(const TestSpec& spec, const SpecLimits& limits) {
  if (spec.rr.enabled()) return std::nullopt;
  if (spec.block_bytes > limits.max_block_bytes) {
    return Violation(SpecViolation::kBlockSize,
                     fmt::format("block length {} exceeds the limit of {} bytes", spec.block_bytes,
                                 limits.max_block_bytes));
  }
  if (spec.transport == Transport::kUdp && spec.block_bytes != 0) {
    const uint32_t header = spec.udp_counters_64bit ? 16 : 12;
    if (spec.block_bytes < header) {
      return Violation(SpecViolation::kBlockSize,
                       fmt::format("UDP block length must be at least {} bytes", header));
    }
    if (spec.block_bytes > 65507) {
      return Violation(SpecViolation::kBlockSize, "UDP block length must be at most 65507 bytes");
    }
  }
  return std::nullopt;
}

// The socket and pacing settings of the streams.
std::optional<SpecError> ValidateSocketOptions(const TestSpec& spec, const SpecLimits& limits) {
  if (spec.udp_offload && spec.transport != Transport::kUdp) {
    return Violation(SpecViolation::kOther, "--udp-offload applies to UDP tests only (-u)");
  }
  if (spec.window_bytes > limits.max_window_bytes) {
    return Violation(SpecViolation::kWindow,
                     fmt::format("window {} exceeds the limit of {} bytes", spec.window_bytes,
                                 limits.max_window_bytes));
  }
  if (limits.max_rate_bits_per_second != 0 && !spec.rr.enabled() &&
      (spec.rate_bits_per_second == 0 ||
       spec.rate_bits_per_second > limits.max_rate_bits_per_second)) {
    return Violation(SpecViolation::kRate,
                     fmt::format("rate must be set and at most {} bit/s per stream",
                                 limits.max_rate_bits_per_second));
  }
  if (spec.mss_bytes != 0 && (spec.mss_bytes < 88 || spec.mss_bytes > 65535)) {
    return Violation(SpecViolation::kOther, "MSS must be between 88 and 65535 bytes");
  }
  if (spec.tos < 0 || spec.tos > 255) {
    return Violation(SpecViolation::kOther, "TOS must be between 0 and 255");
  }
  if (spec.pacing_timer_us == 0 || spec.pacing_timer_us > 1000000) {
    return Violation(SpecViolation::kOther, "pacing timer must be between 1 and 1000000 us");
  }
  if (spec.congestion.size() > 16) {
    return Violation(SpecViolation::kOther, "congestion control name too long");
  }
  return std::nullopt;
}

}  // namespace

std::optional<SpecError> Validate(const TestSpec& spec, const SpecLimits& limits) {
  if (spec.rr.enabled()) {
    if (auto problem = ValidateRr(spec, limits)) return problem;
  } else if (spec.parallel < 1 || spec.parallel > limits.max_parallel) {
    return Violation(SpecViolation::kParallel, fmt::format("parallel streams {} out of range 1..{}",
                                                           spec.parallel, limits.max_parallel));
  }
  if (auto problem = ValidateTiming(spec, limits)) return problem;
  if (auto problem = ValidateBlock(spec, limits)) return problem;
  return ValidateSocketOptions(spec, limits);
}

uint32_t EffectiveBlockBytes(const TestSpec& spec, uint32_t udp_default) {
  if (spec.block_bytes != 0) return spec.block_bytes;
  return spec.transport == Transport::kTcp ? 128u * 1024u : udp_default;
}

const char* TransportName(Transport t) { return t == Transport::kTcp ? "TCP" : "UDP"; }

std::string RrSpinNote(const RrSpec& rr) {
  if (rr.spin_us == 0) return "";
  return fmt::format(", each wait polls {} us before it sleeps", rr.spin_us);
}

const char* RrModeName(RrMode m) {
  switch (m) {
    case RrMode::kRr: return "rr";
    case RrMode::kCrr: return "crr";
    default: return "none";
  }
}

}  // namespace nicbench::record
