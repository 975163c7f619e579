#include "probes/queue_sample.h"

#include "probes/nic_internal.h"
#include "probes/text_scan.h"

namespace nicbench::probes {

using record::Measured;
using record::Missing;

Measured<uint64_t> ReadBqlInflight(FileSource& files, const std::string& iface) {
  const std::string dir = "/sys/class/net/" + iface + "/queues";
  auto queues = files.ListDir(dir);
  if (!queues) return UnknownFrom<uint64_t>(queues.error());
  uint64_t sum = 0;
  bool any = false;
  std::string buffer;
  for (const std::string& q : *queues) {
    if (q.rfind("tx-", 0) != 0) continue;
    if (!files.ReadInto(dir + "/" + q + "/byte_queue_limits/inflight", buffer)) continue;
    auto value = scan::ToU64(scan::Trim(buffer));
    if (!value) continue;
    sum += *value;
    any = true;
  }
  if (!any) {
    return Measured<uint64_t>::Unknown(
        Missing::kNotSupported, "no byte queue limits on " + iface + " (the driver has none)");
  }
  return sum;
}

Measured<record::QueueSample> ReadQueueSample(FileSource& files, const std::string& iface) {
  if (!files.IsLive()) {
    return Measured<record::QueueSample>::Unknown(
        Missing::kNotSupported,
        "a captured tree holds no qdisc backlog (a moment of the live kernel)");
  }
  Measured<record::QueueSample> queue = internal::ReadRootBacklog(iface);
  if (queue.known()) queue.value().bql_inflight_bytes = ReadBqlInflight(files, iface);
  return queue;
}

}  // namespace nicbench::probes
