// The pure half of reading the root qdisc through rtnetlink (qdisc_netlink_linux.cc): walking
// the messages of one recv(2) of an RTM_GETQDISC / RTM_GETTCLASS dump and reading the tc
// attributes inside them. The bytes come from the kernel, but they are taken apart with lengths
// the bytes themselves hold, so these functions check every length against what was received
// (tests/fuzz/netlink_qdisc.cc feeds them anything). Internal to the probes layer; pure,
// thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "base/result.h"
#include "record/facts.h"
#include "record/host_sample.h"

struct tcmsg;
struct rtattr;

namespace nicbench::probes::internal {

// A tbf qdisc's or an htb class's rate, as its options hold it.
struct Shaping {
  uint64_t bytes_per_second = 0;
  uint32_t overhead = 0;
  uint32_t buffer_ticks = 0;  // tbf: the bucket as time, in psched ticks (64 ns)
};

// The rate in bits per second, saturating at UINT64_MAX (a 64-bit byte rate times 8 can wrap).
uint64_t BitsPerSecond(const Shaping& shaping);

// (message header, its attributes, their length in bytes).
using TcMessageFn = std::function<void(const struct tcmsg&, const struct rtattr*, int)>;

// Walks the netlink messages in `data` (one recv(2) of a dump) and calls `on_message` for each
// tc message of interface `ifindex`. Returns true once NLMSG_DONE is seen (the dump is over),
// false when more is to come, and an error for an NLMSG_ERROR, carrying the kernel's errno.
// REQUIRES: `data` aligned as a struct nlmsghdr.
Result<bool> WalkTcDump(const char* data, size_t size, int ifindex, const TcMessageFn& on_message);

// Calls `on_attr(type, payload, length)` for each attribute of one level.
void ForEachAttr(const struct rtattr* attrs, int len,
                 const std::function<void(int, const void*, int)>& on_attr);

// The TCA_KIND attribute ("tbf", "htb", "fq_codel"); "" when absent.
std::string TcKind(const struct rtattr* attrs, int len);

// tbf: TCA_TBF_PARMS holds the rate in bytes/s (32 bits), TCA_TBF_RATE64 the full value; htb
// class: TCA_HTB_PARMS / TCA_HTB_RATE64 in the same way. `options` is TCA_OPTIONS's payload.
Shaping ParseRateOptions(const void* options, int len, int parms_type, int rate64_type);

// The root qdisc from its message of the RTM_GETQDISC dump: kind, and for tbf its rate,
// overhead and burst. False when the message is not the root's (tcm_parent != TC_H_ROOT).
bool RootQdiscFromMessage(const struct tcmsg& tc, const struct rtattr* attrs, int len,
                          record::Qdisc& root);

// The root qdisc's queue from its message: kind, backlog (bytes, packets) and drops, from
// TCA_STATS2's TCA_STATS_QUEUE (or the older TCA_STATS). False when the message is not the
// root's. bql_inflight_bytes is left as it was.
bool RootBacklogFromMessage(const struct tcmsg& tc, const struct rtattr* attrs, int len,
                            record::QueueSample& queue);

// An htb class's rate from its message of the RTM_GETTCLASS dump; zero for another kind.
Shaping HtbClassRate(const struct rtattr* attrs, int len);

}  // namespace nicbench::probes::internal
