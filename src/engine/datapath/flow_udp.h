// UDP flows. Each datagram is block_bytes long and starts with the iperf3 header (sender's
// CLOCK_MONOTONIC sec/usec, then the sequence number from 1, 32 or 64 bits, big-endian;
// protocol/wire.h). The receiver feeds protocol::UdpReceiveStats for loss, reordering and
// RFC 1889 jitter exactly as iperf 3.12 counts them. skip_rx_copy does not apply to UDP: the
// receiver must read each header (and MSG_TRUNC on UDP only reports the real length).
//
// Both ends move a batch of datagrams per system call: sendmmsg(2)/recvmmsg(2) by default, or,
// with FlowConfig::udp_offload, one UDP_SEGMENT send of up to 46 datagrams of 1400 bytes
// (segmented by the kernel or the NIC) and UDP_GRO receives that the receiver splits at the
// segment size the kernel reports. Every datagram still carries its own header and sequence
// number, so a stock iperf3 peer counts each one. A batch's datagrams share one timestamp (the
// moment the batch was handed to the kernel; on the receiver, the moment it returned), which
// is the resolution jitter can have when one system call moves them all. A flow alone on its
// worker (one stream each way per thread) runs in blocking calls outside the epoll loop, as
// iperf3's stream threads do: the receiver sleeps in recvmmsg(MSG_WAITFORONE) and takes what
// has queued when it wakes, and neither socket has an epoll entry for the kernel to call per
// datagram.
// Thread safety: as Flow.
#pragma once

#include <sys/socket.h>

#include <memory>
#include <optional>
#include <vector>

#include "engine/datapath/flow.h"
#include "engine/datapath/pacer.h"
#include "protocol/udp_stats.h"

namespace nicbench::engine {

class UdpSender final : public Flow {
 public:
  // `batch` holds batch_datagrams whole datagrams back to back, payload filled once (headers are
  // rewritten per send). `gso`: the socket has UDP_SEGMENT set to block_bytes.
  // REQUIRES: config.block_bytes >= protocol::UdpHeaderBytes(config.udp_counters_64bit),
  // batch.size() == config.block_bytes * batch_datagrams, batch_datagrams >= 1.
  UdpSender(const FlowConfig& config, net::UniqueFd fd, FlowEnv env, std::vector<uint8_t> batch,
            uint32_t batch_datagrams, bool gso);

  void Begin(MonoTime now) override;
  Result<FlowState> OnEvents(uint32_t events) override;
  Result<FlowState> OnPacingTick(MonoTime now) override;
  // An unpaced sender alone on its worker sends in blocking calls (flow.h).
  bool BlocksWhenAlone() const override { return !paced(); }
  Result<FlowState> RunBlocking() override;

 private:
  enum class Outcome { kSent, kWouldBlock };
  // Sends batches until the socket is full, the pacer turns red or the wakeup cap.
  Result<FlowState> Pump(const MonoTime* now);
  // Tops reserved_ up towards `want` from the shared budget; returns reserved_.
  uint32_t Reserve(uint32_t want);
  void StampHeaders(uint32_t count);
  // Hands `count` reserved datagrams to the kernel; `*sent` says how many it took.
  Result<Outcome> SendBatch(uint32_t count, uint32_t* sent);
  Result<Outcome> SendGso(uint32_t count, uint32_t* sent);
  Result<Outcome> SendMmsg(uint32_t count, uint32_t* sent);
  void Account(uint32_t datagrams);

  std::vector<uint8_t> batch_;
  std::vector<mmsghdr> msgs_;
  std::vector<iovec> iovs_;
  const uint32_t batch_datagrams_;
  const uint32_t max_datagrams_per_wakeup_;
  const uint32_t burst_;
  bool gso_;
  int send_flags_ = MSG_DONTWAIT | MSG_NOSIGNAL;  // MSG_NOSIGNAL alone in RunBlocking
  bool budgeted_ = false;                         // read at Begin: SetBudget comes after AddFlow
  uint64_t next_seq_ = 1;
  uint32_t reserved_ = 0;  // granted by the budget, not yet accepted by the kernel
  std::optional<Pacer> pacer_;
};

class UdpReceiver final : public Flow {
 public:
  // `gro`: the socket has UDP_GRO on, so one receive may hold several datagrams.
  UdpReceiver(const FlowConfig& config, net::UniqueFd fd, FlowEnv env, bool gro);

  void Begin(MonoTime now) override;
  Result<FlowState> OnEvents(uint32_t events) override;
  Result<FlowState> OnPacingTick(MonoTime) override { return FlowState::kActive; }
  // Alone on its worker, a receiver waits in recvmmsg(MSG_WAITFORONE) (flow.h).
  bool BlocksWhenAlone() const override { return true; }
  Result<FlowState> RunBlocking() override;

 private:
  void PrepareSlots();  // once, at Begin
  // Accounts the `count` messages one recvmmsg filled.
  void AccountBatch(ssize_t count);
  // One receive of `bytes` at `data`: a single datagram, or datagrams of `segment_bytes` each
  // (the last may be shorter) when the kernel coalesced them.
  void AccountReceive(const uint8_t* data, size_t bytes, uint32_t segment_bytes, double arrival);
  void AccountDatagram(const uint8_t* data, size_t bytes, double arrival);
  void PublishStats();

  const bool gro_;
  const uint32_t slot_bytes_;
  const uint32_t slots_;
  std::unique_ptr<uint8_t[]> buffer_;
  std::unique_ptr<uint64_t[]> control_;  // 8-byte aligned, as cmsg headers need
  std::vector<mmsghdr> msgs_;
  std::vector<iovec> iovs_;
  protocol::UdpReceiveStats stats_;
};

// Largest datagram a receiver accepts without truncation (the IPv4/IPv6 UDP payload limit).
inline constexpr uint32_t kMaxUdpDatagramBytes = 65535;

// Makes a UDP sender or receiver for `config` (its block size already checked). With
// config.udp_offload the sender sets UDP_SEGMENT and the receiver UDP_GRO; a kernel without
// them (ENOPROTOOPT before 4.18 / 5.0) gets a warning on stderr and the batched path without
// offload, as MSG_ZEROCOPY falls back to copies.
Result<std::unique_ptr<Flow>> MakeUdpFlow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env);

// The buffer bytes a UDP receiver of `block_bytes` datagrams holds (with `gro`, room for whole
// coalesced receives) and a UDP sender holds: what a server reserves per stream (server_budget.h).
uint64_t UdpReceiverBufferBytes(uint32_t block_bytes, bool gro);
uint64_t UdpSenderBufferBytes(uint32_t block_bytes);

// Datagrams per sendmmsg or GSO send for datagrams of `block_bytes` (1..64, within 64 KiB).
uint32_t UdpSendBatch(uint32_t block_bytes);

}  // namespace nicbench::engine
