#include "support/wait.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace nicbench::testing {

bool PortListening(int port, bool udp) {
  char want[8];
  std::snprintf(want, sizeof want, ":%04X", port);
  const char* tables[2] = {udp ? "/proc/net/udp" : "/proc/net/tcp",
                           udp ? "/proc/net/udp6" : "/proc/net/tcp6"};
  for (const char* table : tables) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // "  sl  local_address rem_address   st ..."
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      const bool port_matches = local.size() > 5 && local.compare(local.size() - 5, 5, want) == 0;
      // 0A is TCP_LISTEN; a bound UDP socket is 07 (TCP_CLOSE) until it is connected.
      if (port_matches && (udp || state == "0A")) return true;
    }
  }
  return false;
}

bool WaitListening(int port, bool udp) {
  return WaitUntil([&] { return PortListening(port, udp); });
}

// The peer's socket is looked up by its addresses through sock_diag (an exact lookup, one
// message each way): reading /proc/net/tcp costs a line per socket of the host, and a test
// that opens a thousand connections left as many TIME_WAIT rows to read at every look.
long PeerUnreadBytes(int fd) {
  sockaddr_in local{}, peer{};
  socklen_t len = sizeof local;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return -1;
  len = sizeof peer;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) return -1;
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } ask{};
  ask.header.nlmsg_len = sizeof ask;
  ask.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  ask.header.nlmsg_flags = NLM_F_REQUEST;
  ask.request.sdiag_family = AF_INET;
  ask.request.sdiag_protocol = IPPROTO_TCP;
  ask.request.idiag_states = ~0u;
  // The peer's socket: its local end is our remote one and the other way round.
  ask.request.id.idiag_sport = peer.sin_port;
  ask.request.id.idiag_dport = local.sin_port;
  std::memcpy(ask.request.id.idiag_src, &peer.sin_addr, sizeof peer.sin_addr);
  std::memcpy(ask.request.id.idiag_dst, &local.sin_addr, sizeof local.sin_addr);
  ask.request.id.idiag_cookie[0] = ask.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  const int diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (diag < 0) return -1;
  long unread = -1;
  alignas(nlmsghdr) char answer[8192];
  if (send(diag, &ask, sizeof ask, 0) == static_cast<ssize_t>(sizeof ask)) {
    const ssize_t got = recv(diag, answer, sizeof answer, 0);
    const auto* reply = reinterpret_cast<const nlmsghdr*>(answer);
    if (got > 0 && NLMSG_OK(reply, static_cast<unsigned>(got)) &&
        reply->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
      unread = static_cast<const inet_diag_msg*>(NLMSG_DATA(reply))->idiag_rqueue;
    }
  }
  close(diag);
  return unread;
}

}  // namespace nicbench::testing
