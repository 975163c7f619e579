#include "net/udp_offload.h"

#include <netinet/udp.h>

#include <algorithm>
#include <string>

namespace nicbench::net {

uint32_t GsoSegmentsPerSend(uint32_t datagram_bytes) {
  if (datagram_bytes == 0) return 1;
  return std::clamp<uint32_t>(kMaxGsoBytes / datagram_bytes, 1, kMaxGsoSegments);
}

Status SetUdpSegment(SysCalls& sys, int fd, uint32_t datagram_bytes) {
  const int value = static_cast<int>(datagram_bytes);
  const SysResult r = sys.SetSockOpt(fd, SOL_UDP, UDP_SEGMENT, &value, sizeof value);
  if (r.failed())
    return Fail("setsockopt(UDP_SEGMENT=" + std::to_string(datagram_bytes) + ")", r.err);
  return Ok();
}

Status EnableUdpGro(SysCalls& sys, int fd) {
  const int on = 1;
  const SysResult r = sys.SetSockOpt(fd, SOL_UDP, UDP_GRO, &on, sizeof on);
  if (r.failed()) return Fail("setsockopt(UDP_GRO)", r.err);
  return Ok();
}

uint32_t GroSegmentBytes(const msghdr& msg) {
  if (msg.msg_control == nullptr) return 0;
  for (const cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr;
       c = CMSG_NXTHDR(const_cast<msghdr*>(&msg), const_cast<cmsghdr*>(c))) {
    if (c->cmsg_level != SOL_UDP || c->cmsg_type != UDP_GRO) continue;
    int size = 0;
    std::copy_n(CMSG_DATA(c), sizeof size, reinterpret_cast<unsigned char*>(&size));
    return size > 0 ? static_cast<uint32_t>(size) : 0;
  }
  return 0;
}

}  // namespace nicbench::net
