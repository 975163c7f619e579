// What limited each TCP stream, from its sender's TCP_INFO chrono times (kernel >= 4.10,
// net/ipv4/tcp.c tcp_get_info_chrono_stats): tcpi_busy_time is the time the socket had data
// queued to send, and includes tcpi_rwnd_limited (stalled on the receiver's advertised window)
// and tcpi_sndbuf_limited (stalled on its own send buffer). The rest of the busy time the
// congestion window set the pace (the network), and the time not busy the application had
// nothing queued. The kernel counts in jiffies (4 ms at HZ=250). Pure; thread-safe.
#pragma once

#include <vector>

#include "record/run_record.h"

namespace nicbench::analysis {

enum class Limit { kApplication, kReceiveWindow, kSendBuffer, kNetwork };

// "application", "receive window", "send buffer", "network".
const char* LimitName(Limit limit);

struct StreamLimit {
  int id = 0;
  bool local_sends = false;  // the record's local end sends this stream
  // The span the times cover: from the end of the omitted warm-up (or the first interval's
  // start) to the end of the last counted interval with TCP_INFO, seconds.
  double seconds = 0;
  double busy_seconds = 0, rwnd_limited_seconds = 0, sndbuf_limited_seconds = 0;
  double network_seconds = 0;      // busy - rwnd - sndbuf
  double application_seconds = 0;  // seconds - busy, at least 0
  Limit limit = Limit::kNetwork;   // the largest of the four parts
  double limit_share = 0;          // that part over `seconds`, 0..1
};

// One entry per sending stream of either end whose TCP_INFO carries the chrono times (a busy
// time above 0), local end's streams first, by id. Empty for UDP and request/response tests.
std::vector<StreamLimit> StreamLimits(const record::RunRecord& run);

}  // namespace nicbench::analysis
