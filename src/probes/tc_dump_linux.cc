#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "probes/tc_dump.h"

namespace nicbench::probes::internal {
namespace {

constexpr double kUint64Range = 18446744073709551616.0;  // 2^64

// NLMSG_OK, written out: the macro compares the int length with an unsigned one, which clang
// warns about (-Wsign-compare) even from a system header's macro.
bool MessageFits(const struct nlmsghdr* msg, int left) {
  constexpr auto kHeader = sizeof(struct nlmsghdr);
  return left >= static_cast<int>(kHeader) && msg->nlmsg_len >= kHeader &&
         msg->nlmsg_len <= static_cast<unsigned>(left);
}

}  // namespace

uint64_t BitsPerSecond(const Shaping& shaping) {
  return shaping.bytes_per_second > UINT64_MAX / 8 ? UINT64_MAX : shaping.bytes_per_second * 8;
}

Result<bool> WalkTcDump(const char* data, size_t size, int ifindex, const TcMessageFn& on_message) {
  int left = static_cast<int>(std::min<size_t>(size, INT32_MAX));
  for (auto* msg = reinterpret_cast<const struct nlmsghdr*>(data); MessageFits(msg, left);
       msg = NLMSG_NEXT(msg, left)) {
    if (msg->nlmsg_type == NLMSG_DONE) return true;
    if (msg->nlmsg_type == NLMSG_ERROR) {
      // MessageFits checked the header only: the error code is read only if the message holds it.
      if (msg->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
        return Fail("netlink dump: a truncated error message");
      }
      // The kernel sends -errno (-4095..-1); anything else (INT_MIN, whose negation overflows)
      // is no errno.
      const int code = static_cast<const struct nlmsgerr*>(NLMSG_DATA(msg))->error;
      return Fail("netlink dump", code < 0 && code > -4096 ? -code : EPROTO);
    }
    const int attr_len =
        static_cast<int>(msg->nlmsg_len) - static_cast<int>(NLMSG_LENGTH(sizeof(struct tcmsg)));
    if (attr_len < 0) continue;  // too short for a tcmsg: not one of ours
    const auto* tc = static_cast<const struct tcmsg*>(NLMSG_DATA(msg));
    if (tc->tcm_ifindex != ifindex) continue;
    on_message(*tc,
               reinterpret_cast<const struct rtattr*>(reinterpret_cast<const char*>(tc) +
                                                      NLMSG_ALIGN(sizeof *tc)),
               attr_len);
  }
  return false;
}

void ForEachAttr(const struct rtattr* attrs, int len,
                 const std::function<void(int, const void*, int)>& on_attr) {
  for (; RTA_OK(attrs, len); attrs = RTA_NEXT(attrs, len)) {
    on_attr(attrs->rta_type, RTA_DATA(attrs), static_cast<int>(RTA_PAYLOAD(attrs)));
  }
}

std::string TcKind(const struct rtattr* attrs, int len) {
  std::string kind;
  ForEachAttr(attrs, len, [&](int type, const void* data, int size) {
    if (type == TCA_KIND) {
      kind.assign(static_cast<const char*>(data),
                  strnlen(static_cast<const char*>(data), static_cast<size_t>(size)));
    }
  });
  return kind;
}

Shaping ParseRateOptions(const void* options, int len, int parms_type, int rate64_type) {
  Shaping shaping;
  ForEachAttr(
      static_cast<const struct rtattr*>(options), len, [&](int type, const void* data, int size) {
        if (type == parms_type && size >= static_cast<int>(sizeof(struct tc_ratespec))) {
          struct tc_ratespec rate;
          std::memcpy(&rate, data, sizeof rate);  // first member of tc_tbf_qopt and tc_htb_opt
          if (shaping.bytes_per_second == 0) shaping.bytes_per_second = rate.rate;
          shaping.overhead = rate.overhead;
          if (parms_type == TCA_TBF_PARMS && size >= static_cast<int>(sizeof(struct tc_tbf_qopt))) {
            struct tc_tbf_qopt tbf;
            std::memcpy(&tbf, data, sizeof tbf);
            shaping.buffer_ticks = tbf.buffer;
          }
        } else if (type == rate64_type && size >= 8) {
          std::memcpy(&shaping.bytes_per_second, data, 8);
        }
      });
  return shaping;
}

bool RootQdiscFromMessage(const struct tcmsg& tc, const struct rtattr* attrs, int len,
                          record::Qdisc& root) {
  if (tc.tcm_parent != TC_H_ROOT) return false;
  root.kind = TcKind(attrs, len);
  Shaping shaping;
  if (root.kind == "tbf") {
    ForEachAttr(attrs, len, [&](int type, const void* data, int size) {
      if (type == TCA_OPTIONS)
        shaping = ParseRateOptions(data, size, TCA_TBF_PARMS, TCA_TBF_RATE64);
    });
  }
  root.rate_bits_per_second = BitsPerSecond(shaping);
  root.overhead_bytes = shaping.overhead;
  // The kernel dumps the bucket as time (PSCHED_NS2TICKS: ns >> 6); in bytes at the rate. A
  // product past 2^64 (a 64-bit rate with a long bucket) saturates: converting it would be
  // undefined behaviour.
  const double burst = static_cast<double>(shaping.buffer_ticks) * 64.0 *
                       static_cast<double>(shaping.bytes_per_second) / 1e9;
  root.burst_bytes = burst >= kUint64Range ? UINT64_MAX : static_cast<uint64_t>(burst);
  return true;
}

bool RootBacklogFromMessage(const struct tcmsg& tc, const struct rtattr* attrs, int len,
                            record::QueueSample& queue) {
  if (tc.tcm_parent != TC_H_ROOT) return false;
  queue.qdisc = TcKind(attrs, len);
  bool have_queue = false;
  ForEachAttr(attrs, len, [&](int type, const void* data, int size) {
    if (type == TCA_STATS2) {
      ForEachAttr(static_cast<const struct rtattr*>(data), size,
                  [&](int inner, const void* stats, int stats_size) {
                    if (inner != TCA_STATS_QUEUE ||
                        stats_size < static_cast<int>(sizeof(gnet_stats_queue))) {
                      return;
                    }
                    gnet_stats_queue q;
                    std::memcpy(&q, stats, sizeof q);
                    queue.backlog_bytes = q.backlog, queue.backlog_packets = q.qlen;
                    queue.drops = q.drops;
                    have_queue = true;
                  });
    } else if (type == TCA_STATS && !have_queue && size >= static_cast<int>(sizeof(tc_stats))) {
      tc_stats s;
      std::memcpy(&s, data, sizeof s);
      queue.backlog_bytes = s.backlog, queue.backlog_packets = s.qlen, queue.drops = s.drops;
    }
  });
  return true;
}

Shaping HtbClassRate(const struct rtattr* attrs, int len) {
  if (TcKind(attrs, len) != "htb") return {};
  Shaping here;
  ForEachAttr(attrs, len, [&](int type, const void* data, int size) {
    if (type == TCA_OPTIONS) here = ParseRateOptions(data, size, TCA_HTB_PARMS, TCA_HTB_RATE64);
  });
  return here;
}

}  // namespace nicbench::probes::internal
