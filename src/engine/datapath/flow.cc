#include "engine/datapath/flow.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <string>
#include <vector>

#include "base/log.h"
#include "engine/datapath/flow_file.h"
#include "engine/datapath/flow_payload.h"
#include "engine/datapath/flow_tcp.h"
#include "engine/datapath/flow_udp.h"
#include "engine/datapath/rr_flow.h"
#include "protocol/wire.h"

namespace nicbench::engine {

Flow::Flow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env)
    : config_(config), fd_(std::move(fd)), env_(env) {}

FlowCounters Flow::Snapshot() const {
  FlowCounters c;
  c.id = config_.id;
  c.sender = config_.sender;
  c.bytes = bytes_.load(std::memory_order_relaxed);
  c.blocks = blocks_.load(std::memory_order_relaxed);
  c.packets = packets_.load(std::memory_order_relaxed);
  c.lost = lost_.load(std::memory_order_relaxed);
  c.out_of_order = out_of_order_.load(std::memory_order_relaxed);
  c.jitter_seconds = jitter_seconds_.load(std::memory_order_relaxed);
  FillRr(c);
  return c;
}

Result<FlowState> Flow::Failure(const char* call, int err) const {
  const bool connection_gone = err == EPIPE || err == ECONNRESET || err == ECONNREFUSED;
  if (connection_gone && env_.stopping->load(std::memory_order_acquire)) return FlowState::kClosed;
  return Fail("stream " + std::to_string(config_.id) + ": " + call, err);
}

Result<FlowState> Flow::CheckSocketError() const {
  int err = 0;
  socklen_t len = sizeof(err);
  if (getsockopt(fd(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
    return Failure("getsockopt(SO_ERROR)", errno);
  }
  if (err != 0) return Failure("send", err);
  return FlowState::kActive;
}

Status BlockWithTimeout(int fd, int wait_ms) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) return FailErrno("fcntl");
  return SetWaits(fd, wait_ms);
}

Status SetWaits(int fd, int wait_ms) {
  timeval wait{wait_ms / 1000, static_cast<suseconds_t>(wait_ms % 1000) * 1000};
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait) != 0) {
    return FailErrno("setsockopt(SO_RCVTIMEO)");
  }
  return Ok();
}

std::optional<Result<FlowState>> Flow::EndOfReads(const net::SysResult& r) {
  PublishBytes();
  if (r.value == 0) {
    interest_ = 0;
    return FlowState::kClosed;
  }
  if (r.err == EINTR) return std::nullopt;
  if (r.err == EAGAIN) return FlowState::kActive;
  return Failure("recv", r.err);
}

namespace {

Result<std::unique_ptr<Flow>> MakeTcpSender(const FlowConfig& config, net::UniqueFd fd,
                                            FlowEnv env) {
  const bool sendfile = config.zero_copy == record::ZeroCopy::kSendfile;
  PayloadCache own;  // a flow made outside a DataPath (unit tests) gets its own payload
  PayloadCache& cache = env.payloads != nullptr ? *env.payloads : own;
  auto payload = cache.Get(config.block_bytes, config.repeating_payload, sendfile);
  if (!payload) return tl::unexpected(payload.error());
  bool msg_zerocopy = false;
  if (config.zero_copy == record::ZeroCopy::kMsgZerocopy) {
    if (auto s = EnableMsgZerocopy(fd.get()); s) {
      msg_zerocopy = true;
    } else {
      LogWarning("stream " + std::to_string(config.id) + ": " + s.error().ToString() +
                 "; sending with ordinary copies");
    }
  }
  return std::make_unique<TcpSender>(config, std::move(fd), env, std::move(*payload), msg_zerocopy);
}

}  // namespace

Result<std::unique_ptr<Flow>> MakeFlow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env) {
  if (config.rr.enabled()) return MakeRrFlow(config, std::move(fd), env);
  const bool udp = config.transport == record::Transport::kUdp;
  if (config.block_bytes == 0)
    return Fail("stream " + std::to_string(config.id) + ": block size 0");
  if (udp && (config.block_bytes < protocol::UdpHeaderBytes(config.udp_counters_64bit) ||
              config.block_bytes > kMaxUdpDatagramBytes)) {
    return Fail("stream " + std::to_string(config.id) + ": UDP block of " +
                std::to_string(config.block_bytes) +
                " bytes cannot carry the header or exceeds a datagram");
  }
  if (config.file) return MakeFileFlow(config, std::move(fd), env);
  if (!config.sender) {
    if (udp) return MakeUdpFlow(config, std::move(fd), env);
    return std::make_unique<TcpReceiver>(config, std::move(fd), env);
  }
  if (udp) return MakeUdpFlow(config, std::move(fd), env);
  return MakeTcpSender(config, std::move(fd), env);
}

}  // namespace nicbench::engine
