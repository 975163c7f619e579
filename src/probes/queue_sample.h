// The queues of the interface that carries a test, read at an interval boundary for the
// latency-under-load attribution (docs/latency.md): the root qdisc's backlog and drops through
// rtnetlink, and the bytes in flight in the device's transmit queues where the driver keeps
// byte queue limits.
// Thread safety: no shared state; `files` as FileSource.
#pragma once

#include <string>

#include "probes/file_source.h"
#include "record/host_sample.h"

namespace nicbench::probes {

// Unknown with the reason when `files` is a captured tree (a qdisc's backlog is a moment of the
// live kernel), when IF has no root qdisc, or netlink fails. BQL: unknown "no byte queue limits"
// when no transmit queue of IF has them.
record::Measured<record::QueueSample> ReadQueueSample(FileSource& files, const std::string& iface);

// The sum of /sys/class/net/IF/queues/tx-*/byte_queue_limits/inflight.
record::Measured<uint64_t> ReadBqlInflight(FileSource& files, const std::string& iface);

}  // namespace nicbench::probes
