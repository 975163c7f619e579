// The rtnetlink tc dump walker and attribute readers on replies built as the kernel lays them
// out (include/uapi/linux/netlink.h, rtnetlink.h, pkt_sched.h).
#include "probes/tc_dump.h"

#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <climits>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace nicbench::probes::internal {
namespace {

// A reply buffer, aligned as recv(2)'s is for struct nlmsghdr.
class Reply {
 public:
  // Appends one message: header, then `payload`, padded to NLMSG_ALIGNTO.
  void Message(uint16_t type, const std::vector<char>& payload, uint32_t claimed_len = 0) {
    nlmsghdr h{};
    h.nlmsg_len = claimed_len ? claimed_len : NLMSG_LENGTH(payload.size());
    h.nlmsg_type = type;
    Append(&h, sizeof h);
    Append(payload.data(), payload.size());
    bytes_.resize(NLMSG_ALIGN(bytes_.size()));
  }
  const char* data() {
    words_.assign((bytes_.size() + 3) / 4, 0);
    std::memcpy(words_.data(), bytes_.data(), bytes_.size());
    return reinterpret_cast<const char*>(words_.data());
  }
  size_t size() const { return bytes_.size(); }

 private:
  void Append(const void* p, size_t n) {
    bytes_.insert(bytes_.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
  }
  std::vector<char> bytes_;
  std::vector<uint32_t> words_;
};

std::vector<char> Attr(uint16_t type, const void* data, size_t size) {
  std::vector<char> out(RTA_SPACE(size), 0);
  rtattr a{static_cast<unsigned short>(RTA_LENGTH(size)), type};
  std::memcpy(out.data(), &a, sizeof a);
  std::memcpy(out.data() + RTA_LENGTH(0), data, size);
  return out;
}

std::vector<char> Tc(int ifindex, uint32_t parent, const std::vector<std::vector<char>>& attrs) {
  tcmsg tc{};
  tc.tcm_ifindex = ifindex;
  tc.tcm_parent = parent;
  std::vector<char> out(reinterpret_cast<char*>(&tc), reinterpret_cast<char*>(&tc) + sizeof tc);
  for (const auto& a : attrs) out.insert(out.end(), a.begin(), a.end());
  return out;
}

std::vector<char> TbfOptions(uint32_t rate, uint32_t buffer_ticks) {
  tc_tbf_qopt q{};
  q.rate.rate = rate;
  q.rate.overhead = 14;
  q.buffer = buffer_ticks;
  return Attr(TCA_TBF_PARMS, &q, sizeof q);
}

TEST(TcDump, RootTbfQdiscThenDone) {
  const std::vector<char> options = TbfOptions(125000000, 15625);
  Reply reply;
  reply.Message(RTM_NEWQDISC,
                Tc(2, TC_H_ROOT,
                   {Attr(TCA_KIND, "tbf", 4), Attr(TCA_OPTIONS, options.data(), options.size())}));
  reply.Message(RTM_NEWQDISC, Tc(3, TC_H_ROOT, {Attr(TCA_KIND, "htb", 4)}));
  reply.Message(NLMSG_DONE, std::vector<char>(4, 0));
  record::Qdisc root;
  int messages = 0;
  auto done =
      WalkTcDump(reply.data(), reply.size(), 2, [&](const tcmsg& tc, const rtattr* a, int len) {
        ++messages;
        EXPECT_TRUE(RootQdiscFromMessage(tc, a, len, root));
      });
  ASSERT_TRUE(done);
  EXPECT_TRUE(*done);
  EXPECT_EQ(messages, 1) << "only interface 2's messages";
  EXPECT_EQ(root.kind, "tbf");
  EXPECT_EQ(root.rate_bits_per_second, 1000000000u);
  EXPECT_EQ(root.overhead_bytes, 14u);
  EXPECT_EQ(root.burst_bytes, 125000u);  // 15625 ticks of 64 ns = 1 ms at 125 MB/s
}

TEST(TcDump, AnErrorMessageCarriesTheKernelsErrno) {
  nlmsgerr e{};
  e.error = -EPERM;
  Reply reply;
  reply.Message(NLMSG_ERROR, std::vector<char>(reinterpret_cast<char*>(&e),
                                               reinterpret_cast<char*>(&e) + sizeof e));
  auto done = WalkTcDump(reply.data(), reply.size(), 1, [](const tcmsg&, const rtattr*, int) {});
  ASSERT_FALSE(done);
  EXPECT_EQ(done.error().sys_errno, EPERM);
}

// Regressions (inputs under tests/fuzz/crashes/netlink_qdisc/): an error message too short for
// its code was read past its end; INT_MIN as the code was negated (signed overflow); a 64-bit
// rate with a long bucket made a burst past 2^64, converted to uint64_t (undefined behaviour).
TEST(TcDump, AnErrorMessageTooShortOrWithNoErrnoIsStillAnError) {
  Reply truncated;
  truncated.Message(NLMSG_ERROR, {});
  auto done =
      WalkTcDump(truncated.data(), truncated.size(), 1, [](const tcmsg&, const rtattr*, int) {});
  EXPECT_FALSE(done);
  nlmsgerr e{};
  e.error = INT_MIN;
  Reply int_min;
  int_min.Message(NLMSG_ERROR, std::vector<char>(reinterpret_cast<char*>(&e),
                                                 reinterpret_cast<char*>(&e) + sizeof e));
  done = WalkTcDump(int_min.data(), int_min.size(), 1, [](const tcmsg&, const rtattr*, int) {});
  ASSERT_FALSE(done);
  EXPECT_EQ(done.error().sys_errno, EPROTO);
}

TEST(TcDump, AHugeRateAndBucketSaturate) {
  const std::vector<char> parms = TbfOptions(125000000, UINT32_MAX);
  const uint64_t rate64 = uint64_t{1} << 63;
  std::vector<char> options = parms;
  const std::vector<char> rate = Attr(TCA_TBF_RATE64, &rate64, sizeof rate64);
  options.insert(options.end(), rate.begin(), rate.end());
  Reply reply;
  reply.Message(RTM_NEWQDISC,
                Tc(1, TC_H_ROOT,
                   {Attr(TCA_KIND, "tbf", 4), Attr(TCA_OPTIONS, options.data(), options.size())}));
  record::Qdisc root;
  ASSERT_TRUE(WalkTcDump(
      reply.data(), reply.size(), 1,
      [&](const tcmsg& tc, const rtattr* a, int len) { RootQdiscFromMessage(tc, a, len, root); }));
  EXPECT_EQ(root.rate_bits_per_second, UINT64_MAX);
  EXPECT_EQ(root.burst_bytes, UINT64_MAX);
}

TEST(TcDump, MoreToComeWithoutDone) {
  Reply reply;
  reply.Message(RTM_NEWTCLASS, Tc(1, 0x10000, {Attr(TCA_KIND, "htb", 4)}));
  auto done = WalkTcDump(reply.data(), reply.size(), 1, [](const tcmsg&, const rtattr*, int) {});
  ASSERT_TRUE(done);
  EXPECT_FALSE(*done);
}

TEST(TcDump, RootBacklogFromTheQueueStatistics) {
  // TCA_STATS2 nests TCA_STATS_QUEUE (struct gnet_stats_queue), as `tc -s qdisc` reads it.
  gnet_stats_queue q{};
  q.qlen = 17, q.backlog = 25738, q.drops = 42;
  const std::vector<char> queue = Attr(TCA_STATS_QUEUE, &q, sizeof q);
  Reply reply;
  reply.Message(
      RTM_NEWQDISC,
      Tc(3, TC_H_ROOT, {Attr(TCA_KIND, "tbf", 4), Attr(TCA_STATS2, queue.data(), queue.size())}));
  // A child qdisc's message is not the root's.
  reply.Message(RTM_NEWQDISC, Tc(3, 0x10001, {Attr(TCA_KIND, "bfifo", 6)}));
  record::QueueSample sample;
  int roots = 0;
  ASSERT_TRUE(
      WalkTcDump(reply.data(), reply.size(), 3, [&](const tcmsg& tc, const rtattr* a, int len) {
        roots += RootBacklogFromMessage(tc, a, len, sample) ? 1 : 0;
      }));
  EXPECT_EQ(roots, 1);
  EXPECT_EQ(sample.qdisc, "tbf");
  EXPECT_EQ(sample.backlog_bytes, 25738u);
  EXPECT_EQ(sample.backlog_packets, 17u);
  EXPECT_EQ(sample.drops, 42u);
}

TEST(TcDump, RootBacklogFromTheOlderStatistics) {
  tc_stats old{};
  old.backlog = 3000, old.qlen = 2, old.drops = 7;
  Reply reply;
  reply.Message(
      RTM_NEWQDISC,
      Tc(1, TC_H_ROOT, {Attr(TCA_KIND, "pfifo_fast", 11), Attr(TCA_STATS, &old, sizeof old)}));
  record::QueueSample sample;
  ASSERT_TRUE(
      WalkTcDump(reply.data(), reply.size(), 1, [&](const tcmsg& tc, const rtattr* a, int len) {
        RootBacklogFromMessage(tc, a, len, sample);
      }));
  EXPECT_EQ(sample.backlog_bytes, 3000u);
  EXPECT_EQ(sample.drops, 7u);
}

}  // namespace
}  // namespace nicbench::probes::internal
