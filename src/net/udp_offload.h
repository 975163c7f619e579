// UDP segmentation offload, both halves (Linux): UDP_SEGMENT (GSO, kernel >= 4.18) lets one
// send carry up to kMaxGsoSegments datagrams of one size, which the kernel or the NIC cuts
// apart as TSO does for TCP; UDP_GRO (kernel >= 5.0) lets one receive return several
// datagrams of a flow glued together, with their size in a cmsg. The datagrams on the wire are
// the same either way. Free functions; thread-safe.
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>

#include "base/result.h"
#include "net/sys_calls.h"

namespace nicbench::net {

// Segments per GSO send: UDP_MAX_SEGMENTS (include/linux/udp.h) was 64 when UDP_SEGMENT came
// in (4.18) and is larger in recent kernels; 64 works on every kernel that has it.
inline constexpr uint32_t kMaxGsoSegments = 64;
// Bytes per GSO send: a GSO buffer is one UDP datagram to the socket layer, so its payload
// must fit the 16-bit length (65535 - 8 UDP - 20 IPv4 header bytes).
inline constexpr uint32_t kMaxGsoBytes = 65507;

// Datagrams of `datagram_bytes` one GSO send may carry (>= 1).
uint32_t GsoSegmentsPerSend(uint32_t datagram_bytes);

// setsockopt(SOL_UDP, UDP_SEGMENT, datagram_bytes): every later send longer than
// datagram_bytes leaves as datagrams of that size. 0 turns it off. Fails with ENOPROTOOPT on a
// kernel without it.
Status SetUdpSegment(SysCalls& sys, int fd, uint32_t datagram_bytes);

// setsockopt(SOL_UDP, UDP_GRO, 1). Fails with ENOPROTOOPT on a kernel without it.
Status EnableUdpGro(SysCalls& sys, int fd);

// Room for the UDP_GRO cmsg in a receive's msg_control.
inline constexpr size_t kGroControlBytes = CMSG_SPACE(sizeof(int));

// The segment size a UDP_GRO socket reported for one receive, or 0 when the receive holds one
// datagram (the kernel adds the cmsg only to coalesced receives: udp_cmsg_recv in
// include/net/udp.h).
uint32_t GroSegmentBytes(const msghdr& msg);

}  // namespace nicbench::net
