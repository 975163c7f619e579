#include <sys/epoll.h>
#include <time.h>

#include <algorithm>
#include <cerrno>

#include "engine/datapath/flow_udp.h"
#include "net/udp_offload.h"
#include "protocol/wire.h"

namespace nicbench::engine {
namespace {

constexpr uint32_t kMaxDatagramsPerWakeup = 2048;
// Receive buffer of one flow without GRO: up to 64 datagrams per recvmmsg within 256 KiB.
constexpr uint32_t kReceiveBatchBytes = 256u << 10;
constexpr uint32_t kMaxReceiveSlots = 64;
// With GRO each slot must hold a whole coalesced receive (up to 64 KiB); 8 of them bound a
// flow's buffer to 512 KiB while a peer that does not coalesce still gets 8 per call.
constexpr uint32_t kGroSlots = 8;

// CLOCK_MONOTONIC, as the sender's header (spec section 8); vDSO, no system call.
double MonotonicSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

// Without GRO a slot holds one datagram of the test's block size, as iperf3 reads (a longer
// one is cut short there too); with GRO, the largest receive the kernel can coalesce.
uint32_t SlotBytes(const FlowConfig& config, bool gro) {
  if (gro) return kMaxUdpDatagramBytes;
  return std::clamp<uint32_t>(config.block_bytes, 1, kMaxUdpDatagramBytes);
}

uint32_t Slots(uint32_t slot_bytes, bool gro) {
  if (gro) return kGroSlots;
  return std::clamp<uint32_t>(kReceiveBatchBytes / slot_bytes, 1, kMaxReceiveSlots);
}

}  // namespace

uint64_t UdpReceiverBufferBytes(uint32_t block_bytes, bool gro) {
  FlowConfig config;
  config.block_bytes = block_bytes;
  const uint32_t slot = SlotBytes(config, gro);
  return static_cast<uint64_t>(slot) * Slots(slot, gro) + net::kGroControlBytes * Slots(slot, gro);
}

UdpReceiver::UdpReceiver(const FlowConfig& config, net::UniqueFd fd, FlowEnv env, bool gro)
    : Flow(config, std::move(fd), env),
      gro_(gro),
      slot_bytes_(SlotBytes(config, gro)),
      slots_(Slots(slot_bytes_, gro)),
      buffer_(new uint8_t[static_cast<size_t>(slot_bytes_) * slots_]),
      control_(new uint64_t[(net::kGroControlBytes * slots_ + 7) / 8]),
      msgs_(slots_),
      iovs_(slots_) {
  for (uint32_t i = 0; i < slots_; ++i)
    iovs_[i] = iovec{buffer_.get() + static_cast<size_t>(i) * slot_bytes_, slot_bytes_};
}

void UdpReceiver::Begin(MonoTime) {
  PrepareSlots();
  interest_ = EPOLLIN;
}

void UdpReceiver::PrepareSlots() {
  // recvmmsg rewrites msg_len, msg_flags and msg_controllen of each message it fills, and only
  // those: without a control buffer the headers stay as set up here; with one, the filled
  // messages get their control length back as OnEvents reads them.
  auto* control = reinterpret_cast<uint8_t*>(control_.get());
  for (uint32_t i = 0; i < slots_; ++i) {
    msghdr& h = msgs_[i].msg_hdr;
    h = msghdr{};
    h.msg_iov = &iovs_[i];
    h.msg_iovlen = 1;
    if (gro_) {
      h.msg_control = control + i * net::kGroControlBytes;
      h.msg_controllen = net::kGroControlBytes;
    }
  }
}

Result<FlowState> UdpReceiver::OnEvents(uint32_t) {
  uint32_t datagrams = 0;
  for (uint32_t calls = 0; datagrams < kMaxDatagramsPerWakeup && calls < kMaxDatagramsPerWakeup;
       ++calls) {
    const net::SysResult r = env_.sys->RecvMmsg(fd(), msgs_.data(), slots_, MSG_DONTWAIT);
    if (r.failed()) {
      if (r.err == EINTR) continue;
      if (r.err == EAGAIN) break;
      // A connected UDP socket reports an earlier ICMP port unreachable on the next call; the
      // sender may simply not be there yet or any more. Not a reason to end the test.
      if (r.err == ECONNREFUSED) continue;
      PublishStats();
      return Failure("recv", r.err);
    }
    const uint64_t before = local_blocks_;
    AccountBatch(r.value);
    datagrams += static_cast<uint32_t>(local_blocks_ - before);
    if (static_cast<uint32_t>(r.value) < slots_) break;  // the queue is empty for now
  }
  PublishStats();
  return FlowState::kActive;
}

Result<FlowState> UdpReceiver::RunBlocking() {
  if (auto s = BlockWithTimeout(fd()); !s) return tl::unexpected(s.error());
  const std::atomic<bool>& stopping = *env_.stopping;
  while (!stopping.load(std::memory_order_acquire)) {
    // Blocks for the first datagram only (at most kAloneWaitMs), then takes what has queued.
    const net::SysResult r = env_.sys->RecvMmsg(fd(), msgs_.data(), slots_, MSG_WAITFORONE);
    if (r.failed()) {
      // EAGAIN: the wait timed out; ECONNREFUSED as in OnEvents.
      if (r.err == EAGAIN || r.err == EINTR || r.err == ECONNREFUSED) continue;
      PublishStats();
      return Failure("recv", r.err);
    }
    AccountBatch(r.value);
    PublishStats();
  }
  PublishStats();
  return FlowState::kActive;
}

void UdpReceiver::AccountBatch(ssize_t count) {
  const double arrival = MonotonicSeconds();
  for (ssize_t i = 0; i < count; ++i) {
    AccountReceive(static_cast<const uint8_t*>(iovs_[i].iov_base), msgs_[i].msg_len,
                   gro_ ? net::GroSegmentBytes(msgs_[i].msg_hdr) : 0, arrival);
    if (gro_) msgs_[i].msg_hdr.msg_controllen = net::kGroControlBytes;
  }
}

void UdpReceiver::AccountReceive(const uint8_t* data, size_t bytes, uint32_t segment_bytes,
                                 double arrival) {
  if (segment_bytes == 0 || segment_bytes >= bytes) {
    AccountDatagram(data, bytes, arrival);
    return;
  }
  // A coalesced receive: datagrams of segment_bytes back to back, the last one possibly shorter
  // (udp_gro_receive_segment in net/ipv4/udp_offload.c only appends a shorter one last).
  for (size_t off = 0; off < bytes; off += segment_bytes) {
    AccountDatagram(data + off, std::min<size_t>(segment_bytes, bytes - off), arrival);
  }
}

void UdpReceiver::AccountDatagram(const uint8_t* data, size_t bytes, double arrival) {
  local_bytes_ += bytes;
  ++local_blocks_;
  auto header = protocol::DecodeUdpHeader(data, bytes, config_.udp_counters_64bit);
  if (!header) return;  // too short to carry a header: counted as bytes only
  stats_.OnPacket(header->seq, header->sec + header->usec * 1e-6, arrival);
}

void UdpReceiver::PublishStats() {
  packets_.store(stats_.packets(), std::memory_order_relaxed);
  lost_.store(stats_.lost(), std::memory_order_relaxed);
  out_of_order_.store(stats_.out_of_order(), std::memory_order_relaxed);
  jitter_seconds_.store(stats_.jitter_seconds(), std::memory_order_relaxed);
  PublishBytes();  // last: it may wake the controller (flow.h)
}

}  // namespace nicbench::engine
