#include "support/wait.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

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

long PeerUnreadBytes(int fd) {
  sockaddr_in local{}, peer{};
  socklen_t len = sizeof local;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return -1;
  len = sizeof peer;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) return -1;
  // The peer's row: its local address is our remote one and the other way round.
  char want[64];
  std::snprintf(want, sizeof want, "0100007F:%04X 0100007F:%04X", ntohs(peer.sin_port),
                ntohs(local.sin_port));
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  while (std::getline(tcp, line)) {
    const size_t at = line.find(want);
    if (at == std::string::npos) continue;
    // "sl local rem st tx_queue:rx_queue ...": the queues follow the state.
    unsigned long tx = 0, rx = 0;
    if (std::sscanf(line.c_str() + at + std::strlen(want), " %*x %lx:%lx", &tx, &rx) == 2) {
      return static_cast<long>(rx);
    }
  }
  return -1;
}

}  // namespace nicbench::testing
