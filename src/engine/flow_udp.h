// UDP flows. Each datagram is block_bytes long and starts with the iperf3 header (sender's
// CLOCK_MONOTONIC sec/usec, then the sequence number from 1, 32 or 64 bits, big-endian;
// protocol/wire.h). The receiver feeds protocol::UdpReceiveStats for loss, reordering and
// RFC 1889 jitter exactly as iperf 3.12 counts them. skip_rx_copy does not apply to UDP: the
// receiver must read each header (and MSG_TRUNC on UDP only reports the real length).
// Thread safety: as Flow.
#pragma once

#include <memory>
#include <vector>

#include "engine/flow_sender.h"
#include "protocol/udp_stats.h"

namespace nicbench::engine {

class UdpSender final : public SenderFlow {
 public:
  // REQUIRES: config.block_bytes >= protocol::UdpHeaderBytes(config.udp_counters_64bit).
  UdpSender(const FlowConfig& config, net::UniqueFd fd, FlowEnv env, std::vector<uint8_t> block);

 private:
  Result<SendOutcome> SendBlock() override;

  std::vector<uint8_t> datagram_;  // header rewritten per send, payload filled once
  uint64_t next_seq_ = 1;
  bool pending_ = false;  // a reserved datagram not yet accepted by the kernel
};

class UdpReceiver final : public Flow {
 public:
  UdpReceiver(const FlowConfig& config, net::UniqueFd fd, FlowEnv env);

  void Begin(MonoTime now) override;
  Result<FlowState> OnEvents(uint32_t events) override;
  Result<FlowState> OnPacingTick(MonoTime) override { return FlowState::kActive; }

 private:
  void PublishStats();

  std::unique_ptr<uint8_t[]> buffer_;
  protocol::UdpReceiveStats stats_;
};

// Largest datagram a receiver accepts without truncation (the IPv4/IPv6 UDP payload limit).
inline constexpr uint32_t kMaxUdpDatagramBytes = 65535;

}  // namespace nicbench::engine
