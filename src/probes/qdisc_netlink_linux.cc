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
#include "probes/tc_dump.h"

namespace nicbench::probes::internal {
namespace {

using record::Measured;
using record::Missing;

// Calls `on_message` for every message of a dump of `type` on interface `ifindex`.
Status Dump(int type, int ifindex, const TcMessageFn& on_message) {
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
    auto done = WalkTcDump(buffer.data(), static_cast<size_t>(n), ifindex, on_message);
    if (!done || *done) {
      ::close(fd);
      if (!done) return tl::unexpected(done.error());
      return Ok();
    }
  }
}

Shaping HtbRootClassRate(int ifindex) {
  Shaping best;
  Dump(RTM_GETTCLASS, ifindex, [&](const struct tcmsg&, const struct rtattr* attrs, int len) {
    const Shaping here = HtbClassRate(attrs, len);
    if (here.bytes_per_second > best.bytes_per_second) best = here;
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
        if (!found) found = RootQdiscFromMessage(tc, attrs, len, root);
      });
  if (!status) return UnknownFrom<record::Qdisc>(status.error());
  if (!found) return Measured<record::Qdisc>::Unknown(Missing::kAbsent, "no root qdisc");
  if (root.kind == "htb") {
    Shaping shaping = HtbRootClassRate(ifindex);
    root.rate_bits_per_second = BitsPerSecond(shaping);
    root.overhead_bytes = shaping.overhead;
  }
  return root;
}

Measured<record::QueueSample> ReadRootBacklog(const std::string& iface) {
  int ifindex = static_cast<int>(::if_nametoindex(iface.c_str()));
  if (ifindex == 0)
    return UnknownFrom<record::QueueSample>(Error{"if_nametoindex " + iface, errno});
  bool found = false;
  record::QueueSample queue;
  auto status =
      Dump(RTM_GETQDISC, ifindex, [&](const struct tcmsg& tc, const struct rtattr* attrs, int len) {
        if (!found) found = RootBacklogFromMessage(tc, attrs, len, queue);
      });
  if (!status) return UnknownFrom<record::QueueSample>(status.error());
  if (!found) return Measured<record::QueueSample>::Unknown(Missing::kAbsent, "no root qdisc");
  return queue;
}

}  // namespace nicbench::probes::internal
