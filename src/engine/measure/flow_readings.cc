#include "engine/measure/flow_readings.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <thread>

#include "net/tcp_info.h"

namespace nicbench::engine {

TcpInfoByFlow ReadTcpInfos(const DataPath& path, const std::vector<StreamRole>& streams,
                           record::Transport transport) {
  TcpInfoByFlow out;
  if (transport != record::Transport::kTcp) return out;
  for (const StreamRole& role : streams) {
    int fd = path.FlowFd(role.id);
    if (fd < 0) continue;
    auto info = net::ReadTcpInfo(fd);
    if (info) {
      out[role.id] = *info;
    } else {
      out[role.id] = record::Measured<record::TcpInfoSample>::Unknown(record::Missing::kError,
                                                                      info.error().ToString());
    }
  }
  return out;
}

void AddQueuedBytes(const DataPath& path, record::Transport transport,
                    std::vector<FlowCounters>& counters) {
  if (transport != record::Transport::kTcp) return;
  for (FlowCounters& c : counters) {
    if (c.sender) continue;
    int fd = path.FlowFd(c.id);
    int queued = 0;
    if (fd >= 0 && ioctl(fd, SIOCINQ, &queued) == 0 && queued > 0) c.bytes += queued;
  }
}

void WaitForSendQueues(const DataPath& path, const std::vector<StreamRole>& streams,
                       record::Transport transport, std::chrono::milliseconds limit) {
  if (transport != record::Transport::kTcp) return;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (const StreamRole& role : streams) {
    if (!role.sender) continue;
    const int fd = path.FlowFd(role.id);
    int queued = 0;
    while (fd >= 0 && ioctl(fd, SIOCOUTQ, &queued) == 0 && queued > 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

}  // namespace nicbench::engine
