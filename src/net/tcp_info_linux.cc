#include "net/tcp_info.h"

// <linux/tcp.h> rather than <netinet/tcp.h>: glibc's struct tcp_info stops at
// tcpi_total_retrans and lacks the rate and time fields.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstring>

namespace nicbench::net {
namespace {

// True if the kernel's reply covers the whole of the field at `offset` of `size` bytes.
constexpr bool Covers(size_t length, size_t offset, size_t size) { return length >= offset + size; }

#define NB_HAS(field) Covers(length, offsetof(tcp_info, field), sizeof(info.field))

}  // namespace

record::TcpInfoSample DecodeTcpInfo(const void* data, size_t length, TcpInfoFields* present) {
  tcp_info info{};
  std::memcpy(&info, data, length < sizeof(info) ? length : sizeof(info));
  record::TcpInfoSample s;
  TcpInfoFields fields;
  // The fields up to tcpi_total_retrans are in every kernel since 2.6; still check.
  if (NB_HAS(tcpi_snd_mss)) s.snd_mss = info.tcpi_snd_mss;
  if (NB_HAS(tcpi_pmtu)) s.pmtu = info.tcpi_pmtu;
  if (NB_HAS(tcpi_rttvar)) {
    s.rtt_us = info.tcpi_rtt;
    s.rttvar_us = info.tcpi_rttvar;
  }
  if (NB_HAS(tcpi_snd_cwnd)) s.snd_cwnd = info.tcpi_snd_cwnd;
  if (NB_HAS(tcpi_total_retrans)) s.total_retrans = info.tcpi_total_retrans;
  if ((fields.pacing_rate = NB_HAS(tcpi_pacing_rate)))
    s.pacing_rate_bytes_per_second = info.tcpi_pacing_rate;
  if ((fields.delivery_rate = NB_HAS(tcpi_delivery_rate))) {
    s.delivery_rate_bytes_per_second = info.tcpi_delivery_rate;
  }
  if ((fields.busy_time = NB_HAS(tcpi_sndbuf_limited))) {
    s.busy_time_us = info.tcpi_busy_time;
    s.rwnd_limited_us = info.tcpi_rwnd_limited;
    s.sndbuf_limited_us = info.tcpi_sndbuf_limited;
  }
  if ((fields.snd_wnd = NB_HAS(tcpi_snd_wnd))) s.snd_wnd = info.tcpi_snd_wnd;
  if (NB_HAS(tcpi_reordering)) s.reordering = info.tcpi_reordering;
  if ((fields.reordering = NB_HAS(tcpi_dsack_dups))) {
    s.reord_seen = info.tcpi_reord_seen;
    s.dsack_dups = info.tcpi_dsack_dups;
  }
  if (NB_HAS(tcpi_unacked)) s.unacked = info.tcpi_unacked;
  if (NB_HAS(tcpi_notsent_bytes)) s.notsent_bytes = info.tcpi_notsent_bytes;
  if (present != nullptr) *present = fields;
  return s;
}

#undef NB_HAS

Result<record::TcpInfoSample> ReadTcpInfo(int fd, TcpInfoFields* present) {
  tcp_info info{};
  socklen_t len = sizeof(info);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0)
    return FailErrno("getsockopt(TCP_INFO)");
  return DecodeTcpInfo(&info, len, present);
}

}  // namespace nicbench::net
