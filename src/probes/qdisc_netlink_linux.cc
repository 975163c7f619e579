// The root qdisc of an interface through rtnetlink (RTM_GETQDISC dump), as `tc qdisc show`
// gets it. The rate of tbf is in its parameters (TCA_TBF_PARMS, TCA_TBF_RATE64 above 4 GB/s);
// htb keeps rates on its classes, so for htb the classes directly under the root
// (RTM_GETTCLASS) are read and the largest rate among them is reported.
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <vector>

#include "probes/file_source.h"
#include "probes/nic_internal.h"

namespace nicbench::probes::internal {
namespace {

using record::Measured;
using record::Missing;

struct Shaping {
  uint64_t bytes_per_second = 0;
  uint32_t overhead = 0;
  uint32_t buffer_ticks = 0;  // tbf: the bucket as time, in psched ticks (64 ns)
};

// Calls `on_message` for every message of a dump of `type` on interface `ifindex`.
Status Dump(int type, int ifindex,
            const std::function<void(const struct tcmsg&, const struct rtattr*, int)>& on_message) {
  int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return FailErrno("netlink socket");
  struct {
    struct nlmsghdr header;
    struct tcmsg tc;
  } request{};
  request.header.nlmsg_len = sizeof request;
  request.header.nlmsg_type = static_cast<uint16_t>(type);
  request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  request.header.nlmsg_seq = 1;
  request.tc.tcm_family = AF_UNSPEC;
  request.tc.tcm_ifindex = ifindex;
  if (::send(fd, &request, sizeof request, 0) < 0) {
    auto failure = FailErrno("netlink send");
    ::close(fd);
    return failure;
  }
  std::vector<char> buffer(32768);
  while (true) {
    ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      auto failure = FailErrno("netlink recv");
      ::close(fd);
      return failure;
    }
    int left = static_cast<int>(n);
    for (auto* msg = reinterpret_cast<struct nlmsghdr*>(buffer.data()); NLMSG_OK(msg, left);
         msg = NLMSG_NEXT(msg, left)) {
      if (msg->nlmsg_type == NLMSG_DONE) {
        ::close(fd);
        return Ok();
      }
      if (msg->nlmsg_type == NLMSG_ERROR) {
        auto* error = static_cast<struct nlmsgerr*>(NLMSG_DATA(msg));
        ::close(fd);
        return Fail("netlink dump", -error->error);
      }
      auto* tc = static_cast<struct tcmsg*>(NLMSG_DATA(msg));
      int attr_len = static_cast<int>(msg->nlmsg_len) - static_cast<int>(NLMSG_LENGTH(sizeof *tc));
      if (attr_len >= 0 && tc->tcm_ifindex == ifindex) {
        on_message(*tc,
                   reinterpret_cast<const struct rtattr*>(reinterpret_cast<const char*>(tc) +
                                                          NLMSG_ALIGN(sizeof *tc)),
                   attr_len);
      }
    }
  }
}

// Walks the attributes of one level; calls `on_attr(type, payload, length)`.
void ForEachAttr(const struct rtattr* attr, int len,
                 const std::function<void(int, const void*, int)>& on_attr) {
  for (; RTA_OK(attr, len); attr = RTA_NEXT(attr, len)) {
    on_attr(attr->rta_type, RTA_DATA(attr), static_cast<int>(RTA_PAYLOAD(attr)));
  }
}

// tbf: TCA_TBF_PARMS holds the rate in bytes/s (32 bits); TCA_TBF_RATE64 the full value.
// htb class: TCA_HTB_PARMS / TCA_HTB_RATE64 in the same way.
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

Shaping HtbRootClassRate(int ifindex) {
  Shaping best;
  Dump(RTM_GETTCLASS, ifindex, [&](const struct tcmsg& tc, const struct rtattr* attrs, int len) {
    (void)tc;
    std::string kind;
    Shaping here;
    ForEachAttr(attrs, len, [&](int type, const void* data, int size) {
      if (type == TCA_KIND)
        kind.assign(static_cast<const char*>(data), strnlen(static_cast<const char*>(data), size));
      if (type == TCA_OPTIONS) here = ParseRateOptions(data, size, TCA_HTB_PARMS, TCA_HTB_RATE64);
    });
    if (kind == "htb" && here.bytes_per_second > best.bytes_per_second) best = here;
  });
  return best;
}

}  // namespace

Measured<record::Qdisc> ReadRootQdisc(const std::string& iface) {
  int ifindex = static_cast<int>(::if_nametoindex(iface.c_str()));
  if (ifindex == 0) return UnknownFrom<record::Qdisc>(Error{"if_nametoindex " + iface, errno});
  bool found = false;
  record::Qdisc root;
  auto status =
      Dump(RTM_GETQDISC, ifindex, [&](const struct tcmsg& tc, const struct rtattr* attrs, int len) {
        if (tc.tcm_parent != TC_H_ROOT || found) return;
        found = true;
        Shaping shaping;
        ForEachAttr(attrs, len, [&](int type, const void* data, int size) {
          if (type == TCA_KIND)
            root.kind.assign(static_cast<const char*>(data),
                             strnlen(static_cast<const char*>(data), size));
        });
        if (root.kind == "tbf") {
          ForEachAttr(attrs, len, [&](int type, const void* data, int size) {
            if (type == TCA_OPTIONS)
              shaping = ParseRateOptions(data, size, TCA_TBF_PARMS, TCA_TBF_RATE64);
          });
        }
        root.rate_bits_per_second = shaping.bytes_per_second * 8;
        root.overhead_bytes = shaping.overhead;
        // The kernel dumps the bucket as time (PSCHED_NS2TICKS: ns >> 6); in bytes at the rate.
        root.burst_bytes =
            static_cast<uint64_t>(static_cast<double>(shaping.buffer_ticks) * 64.0 *
                                  static_cast<double>(shaping.bytes_per_second) / 1e9);
      });
  if (!status) return UnknownFrom<record::Qdisc>(status.error());
  if (!found) return Measured<record::Qdisc>::Unknown(Missing::kAbsent, "no root qdisc");
  if (root.kind == "htb") {
    Shaping shaping = HtbRootClassRate(ifindex);
    root.rate_bits_per_second = shaping.bytes_per_second * 8;
    root.overhead_bytes = shaping.overhead;
  }
  return root;
}

}  // namespace nicbench::probes::internal
