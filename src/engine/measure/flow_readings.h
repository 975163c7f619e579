// What the measurement reads of a running DataPath's sockets besides its counters: which
// streams there are and who sends on each, TCP_INFO, the bytes still queued in the kernel.
// Thread safety: plain functions of the controller thread; the DataPath may be running.
#pragma once

#include <chrono>
#include <vector>

#include "engine/datapath/data_path.h"
#include "engine/measure/interval_sampler.h"
#include "record/test_spec.h"

namespace nicbench::engine {

// One stream of a test from one end's point of view, in connection order.
struct StreamRole {
  int id = 0;
  bool sender = false;
};

// TCP_INFO of every TCP flow, read now.
TcpInfoByFlow ReadTcpInfos(const DataPath& path, const std::vector<StreamRole>& streams,
                           record::Transport transport);

// For TCP receiver flows: adds the bytes already queued in the socket's receive buffer
// (SIOCINQ) to the final counters, so "received by the end" counts what the kernel accepted
// even if the worker had not read it yet (a receiver wakes once per block, SO_RCVLOWAT, so up
// to a block can wait there). Exact once the DataPath is stopped and joined; on a running path
// a read between the snapshot and the ioctl is missed (never counted twice). UDP: nothing (the
// ioctl gives one datagram's size there, not a byte count of the queue).
void AddQueuedBytes(const DataPath& path, record::Transport transport,
                    std::vector<FlowCounters>& counters);

// Waits (up to `limit`) until every TCP sender flow's send queue is empty (SIOCOUTQ 0: the
// peer's kernel has acknowledged every byte). A test that ends by bytes or blocks calls this
// before TEST_END, because a receiver (a stock iperf3 server among them) stops counting when
// TEST_END arrives and would otherwise miss the bytes still in flight.
void WaitForSendQueues(const DataPath& path, const std::vector<StreamRole>& streams,
                       record::Transport transport, std::chrono::milliseconds limit);

}  // namespace nicbench::engine
