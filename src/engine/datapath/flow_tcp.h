// TCP flows. The sender repeats one block filled at creation, by send(2), sendfile(2) from a
// memfd (ZeroCopy::kSendfile, iperf3 -Z), or send(MSG_ZEROCOPY) with completions drained from
// the error queue. The receiver counts what recv(2) returns, optionally with MSG_TRUNC so the
// kernel discards the data instead of copying it (skip_rx_copy). No clock on this path.
// Thread safety: as Flow.
#pragma once

#include <sys/socket.h>

#include <memory>
#include <vector>

#include "engine/datapath/flow_payload.h"
#include "engine/datapath/flow_sender.h"

namespace nicbench::engine {

class TcpSender final : public SenderFlow {
 public:
  // Use MakeFlow; `payload` (shared with the test's other senders) has a memfd for
  // ZeroCopy::kSendfile only.
  TcpSender(const FlowConfig& config, net::UniqueFd fd, FlowEnv env,
            std::shared_ptr<const Payload> payload, bool msg_zerocopy);

  // A zero-copy sender moves to the worker's own payload (flow_payload.h, WorkerBuffers).
  Status Attach(WorkerBuffers& buffers) override;

  uint64_t zerocopy_completions() const { return zerocopy_completions_; }
  uint64_t zerocopy_copied() const { return zerocopy_copied_; }

 private:
  Result<SendOutcome> SendBlock() override;
  Result<bool> OnErrorQueue() override;
  bool BlocksWhenAloneToo() const override { return !msg_zerocopy_; }
  void SendBlocking() override { send_flags_ = MSG_NOSIGNAL; }
  net::SysResult WriteSome();

  void Use(std::shared_ptr<const Payload> payload);

  std::shared_ptr<const Payload> payload_;
  const uint8_t* block_ = nullptr;  // payload_->block.data(), read-only
  int memfd_ = -1;                  // payload_->memfd, or -1
  const bool msg_zerocopy_;
  int send_flags_ = MSG_DONTWAIT | MSG_NOSIGNAL;  // MSG_NOSIGNAL alone in RunBlocking
  uint32_t offset_ = 0;                           // into the block in progress
  uint32_t left_ = 0;  // bytes of it still to send; 0 = no block in progress
  uint64_t zerocopy_completions_ = 0;
  uint64_t zerocopy_copied_ = 0;  // completions the kernel had to copy anyway (e.g. loopback)
};

class TcpReceiver final : public Flow {
 public:
  TcpReceiver(const FlowConfig& config, net::UniqueFd fd, FlowEnv env);

  // Reads into the worker's shared receive buffer instead of one of its own.
  Status Attach(WorkerBuffers& buffers) override;
  void Begin(MonoTime now) override;
  Result<FlowState> OnEvents(uint32_t events) override;
  Result<FlowState> OnPacingTick(MonoTime) override { return FlowState::kActive; }
  // Alone on its worker it sleeps in recv(2), as iperf3's stream threads do.
  bool BlocksWhenAlone() const override { return true; }
  Result<FlowState> RunBlocking() override;

 private:
  WorkerBuffers* shared_ = nullptr;
  AlignedBytes own_;                   // only when never attached (a flow outside a DataPath)
  uint8_t* buffer_ = nullptr;          // set at Begin: the shared buffer is final by then
  uint32_t max_reads_per_wakeup_ = 1;  // set at Begin (Flow::BlocksPerWakeup)
};

// Turns SO_ZEROCOPY on (kernel >= 4.14). Fails on kernels or sockets without it.
Status EnableMsgZerocopy(int fd);

}  // namespace nicbench::engine
