#include "engine/datapath/flow_tcp.h"

#include <linux/errqueue.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace nicbench::engine {
namespace {

// One error-queue message: a MSG_ZEROCOPY completion notice, or a real socket error.
struct Completion {
  uint64_t sends = 0;  // sends completed by this notice (a range of send call numbers)
  bool copied = false;
  int error = 0;
};

Completion ParseErrorQueueMessage(msghdr& msg) {
  Completion out;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    const bool ip_err = (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
                        (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR);
    if (!ip_err) continue;
    const auto* ee = reinterpret_cast<const sock_extended_err*>(CMSG_DATA(c));
    if (ee->ee_origin == SO_EE_ORIGIN_ZEROCOPY && ee->ee_errno == 0) {
      // ee_info..ee_data is the inclusive range of completed send calls
      // (Documentation/networking/msg_zerocopy.rst).
      out.sends += static_cast<uint64_t>(ee->ee_data - ee->ee_info) + 1;
      out.copied = out.copied || (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED) != 0;
    } else if (ee->ee_errno != 0) {
      out.error = static_cast<int>(ee->ee_errno);
    }
  }
  return out;
}

}  // namespace

Status EnableMsgZerocopy(int fd) {
  int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) != 0) {
    return FailErrno("MSG_ZEROCOPY unsupported: setsockopt(SO_ZEROCOPY)");
  }
  return Ok();
}

TcpSender::TcpSender(const FlowConfig& config, net::UniqueFd fd, FlowEnv env,
                     std::shared_ptr<const Payload> payload, bool msg_zerocopy)
    : SenderFlow(config, std::move(fd), env), msg_zerocopy_(msg_zerocopy) {
  Use(std::move(payload));
}

void TcpSender::Use(std::shared_ptr<const Payload> payload) {
  payload_ = std::move(payload);
  block_ = payload_->block.data();
  memfd_ = payload_->memfd ? payload_->memfd.get() : -1;
}

Status TcpSender::Attach(WorkerBuffers& buffers) {
  const bool sendfile = memfd_ >= 0;
  if (!sendfile && !msg_zerocopy_) return Ok();  // a copying send only reads the block
  auto payload = buffers.ZeroCopyPayload(config_.block_bytes, config_.repeating_payload, sendfile);
  if (!payload) return tl::unexpected(payload.error());
  Use(std::move(*payload));
  return Ok();
}

net::SysResult TcpSender::WriteSome() {
  if (memfd_ >= 0) {
    off_t file_offset = offset_;
    return env_.sys->SendFile(fd(), memfd_, &file_offset, left_);
  }
  const int flags = msg_zerocopy_ ? send_flags_ | MSG_ZEROCOPY : send_flags_;
  return env_.sys->Send(fd(), block_ + offset_, left_, flags);
}

Result<SenderFlow::SendOutcome> TcpSender::SendBlock() {
  if (left_ == 0) {
    left_ = ReserveBlock(/*exact=*/true);
    if (left_ == 0) return SendOutcome::kBudgetSpent;
    offset_ = 0;
  }
  for (;;) {
    const net::SysResult r = WriteSome();
    if (r.failed()) {
      if (r.err == EINTR) continue;
      if (r.err == EAGAIN) return SendOutcome::kWouldBlock;
      if (r.err == ENOBUFS && msg_zerocopy_) {
        // Pinned pages are charged to optmem until their completions are read.
        auto drained = OnErrorQueue();
        if (!drained) return tl::unexpected(drained.error());
        if (*drained) continue;
        return SendOutcome::kWaitCompletions;
      }
      auto state = Failure(memfd_ >= 0 ? "sendfile" : "send", r.err);
      if (!state) return tl::unexpected(state.error());
      return SendOutcome::kBudgetSpent;  // the test is stopping: nothing more to send
    }
    const auto n = static_cast<uint32_t>(r.value);
    local_bytes_ += n;
    offset_ += n;
    left_ -= n;
    if (left_ == 0) {
      ++local_blocks_;
      PublishBytes();
      return SendOutcome::kBlock;
    }
    PublishBytes();
  }
}

Result<bool> TcpSender::OnErrorQueue() {
  if (!msg_zerocopy_) return false;
  bool drained = false;
  for (;;) {
    alignas(cmsghdr) char control[128];
    msghdr msg{};
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const net::SysResult r = env_.sys->RecvMsg(fd(), &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
    if (r.failed()) {
      if (r.err == EINTR) continue;
      if (r.err == EAGAIN) return drained;
      auto state = Failure("recvmsg(MSG_ERRQUEUE)", r.err);
      if (!state) return tl::unexpected(state.error());
      return drained;
    }
    const Completion c = ParseErrorQueueMessage(msg);
    if (c.error != 0) {
      auto state = Failure("send (error queue)", c.error);
      if (!state) return tl::unexpected(state.error());
    }
    zerocopy_completions_ += c.sends;
    if (c.copied) zerocopy_copied_ += c.sends;
    drained = drained || c.sends > 0;
  }
}

TcpReceiver::TcpReceiver(const FlowConfig& config, net::UniqueFd fd, FlowEnv env)
    : Flow(config, std::move(fd), env) {}

Status TcpReceiver::Attach(WorkerBuffers& buffers) {
  if (auto s = buffers.ReserveReceive(std::max<uint32_t>(config_.block_bytes, 1)); !s) return s;
  shared_ = &buffers;
  return Ok();
}

void TcpReceiver::Begin(MonoTime) {
  max_reads_per_wakeup_ = BlocksPerWakeup();
  if (shared_ != nullptr) {
    buffer_ = shared_->receive_buffer();
  } else {
    own_.resize(std::max<uint32_t>(config_.block_bytes, 1));
    buffer_ = own_.data();
  }
  interest_ = EPOLLIN;
  if (config_.receive_low_water > 1) {
    // The kernel caps the value at half the receive buffer (tcp_set_rcvlowat), so a block
    // larger than the buffer cannot stall the reader; a failure only costs wakeups.
    const int low_water = static_cast<int>(config_.receive_low_water);
    (void)setsockopt(fd(), SOL_SOCKET, SO_RCVLOWAT, &low_water, sizeof(low_water));
  }
}

Result<FlowState> TcpReceiver::OnEvents(uint32_t) {
  // MSG_TRUNC on a TCP socket discards the bytes without copying them to user space
  // (tcp_recvmsg_locked in net/ipv4/tcp.c); the return value still counts them.
  const int flags = MSG_DONTWAIT | (config_.skip_rx_copy ? MSG_TRUNC : 0);
  const size_t len = std::max<uint32_t>(config_.block_bytes, 1);
  for (uint32_t i = 0; i < max_reads_per_wakeup_; ++i) {
    const net::SysResult r = env_.sys->Recv(fd(), buffer_, len, flags);
    if (r.value > 0) {
      local_bytes_ += static_cast<uint64_t>(r.value);
      ++local_blocks_;
      continue;
    }
    if (auto end = EndOfReads(r)) return std::move(*end);
  }
  PublishBytes();
  return FlowState::kActive;
}

Result<FlowState> TcpReceiver::RunBlocking() {
  if (auto s = BlockWithTimeout(fd()); !s) return tl::unexpected(s.error());
  const int flags = config_.skip_rx_copy ? MSG_TRUNC : 0;
  const size_t len = std::max<uint32_t>(config_.block_bytes, 1);
  const std::atomic<bool>& stopping = *env_.stopping;
  while (!stopping.load(std::memory_order_acquire)) {
    const net::SysResult r = env_.sys->Recv(fd(), buffer_, len, flags);
    if (r.value > 0) {
      local_bytes_ += static_cast<uint64_t>(r.value);
      ++local_blocks_;
      PublishBytes();
      continue;
    }
    if (r.value == 0) return FlowState::kClosed;
    // EAGAIN: nothing came for kAloneWaitMs; look at the stop flag and wait again.
    if (r.err == EINTR || r.err == EAGAIN) continue;
    return Failure("recv", r.err);
  }
  return FlowState::kActive;
}

}  // namespace nicbench::engine
