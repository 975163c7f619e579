#include "record/test_spec.h"

#include <fmt/format.h>

namespace nicbench::record {
namespace {

SpecError Violation(SpecViolation kind, std::string message) {
  return SpecError{kind, std::move(message)};
}

}  // namespace

std::optional<SpecError> Validate(const TestSpec& spec, const SpecLimits& limits) {
  if (spec.parallel < 1 || spec.parallel > limits.max_parallel) {
    return Violation(SpecViolation::kParallel,
                     fmt::format("parallel streams {} out of range 1..{}", spec.parallel,
                                 limits.max_parallel));
  }
  if (spec.duration.count() < 0 || spec.omit.count() < 0) {
    return Violation(SpecViolation::kDuration, "duration and omit must not be negative");
  }
  if (spec.bytes == 0 && spec.blocks == 0 && spec.duration.count() == 0) {
    return Violation(SpecViolation::kDuration, "a test needs a duration, a byte count or a block count");
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
  if (spec.udp_offload && spec.transport != Transport::kUdp) {
    return Violation(SpecViolation::kOther, "--udp-offload applies to UDP tests only (-u)");
  }
  if (spec.window_bytes > limits.max_window_bytes) {
    return Violation(SpecViolation::kWindow,
                     fmt::format("window {} exceeds the limit of {} bytes", spec.window_bytes,
                                 limits.max_window_bytes));
  }
  if (limits.max_rate_bits_per_second != 0 &&
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

uint32_t EffectiveBlockBytes(const TestSpec& spec, uint32_t udp_default) {
  if (spec.block_bytes != 0) return spec.block_bytes;
  return spec.transport == Transport::kTcp ? 128u * 1024u : udp_default;
}

const char* TransportName(Transport t) { return t == Transport::kTcp ? "TCP" : "UDP"; }

}  // namespace nicbench::record
