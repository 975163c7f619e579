#include "probes/tc_text.h"

#include <gtest/gtest.h>

namespace nicbench::probes {
namespace {

// Printed by tc (iproute2 6.1) on the build VM (kernel 6.18) for qdiscs set on a veth with
// `tc qdisc add dev X root tbf rate 100mbit burst 32kb latency 50ms overhead 24`, the same with
// `rate 12345678bit burst 10000`, and an htb root with `class ... htb rate 250mbit overhead 20`.
constexpr char kTbf[] =
    "qdisc tbf 8002: root refcnt 3 rate 100Mbit burst 32787b lat 50ms overhead 24 \n"
    " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
    " backlog 0b 0p requeues 0\n";
constexpr char kTbfOdd[] = "qdisc tbf 8003: root refcnt 3 rate 12345Kbit burst 9999b lat 50ms \n";
constexpr char kHtb[] =
    "qdisc htb 1: root refcnt 3 r2q 10 default 0x10 direct_packets_stat 0 direct_qlen 1000\n"
    " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n";
constexpr char kHtbClasses[] =
    "class htb 1:10 root prio 0 rate 250Mbit overhead 20 ceil 250Mbit burst 1562b cburst 1562b \n"
    " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
    " lended: 0 borrowed: 0 giants: 0\n"
    "class htb 1:20 parent 1:10 prio 0 rate 10Mbit ceil 250Mbit burst 1600b cburst 1562b \n";

TEST(TcTextTest, TbfFromTc) {
  auto q = ParseTcQdisc(kTbf, "");
  ASSERT_TRUE(q) << q.error().ToString();
  EXPECT_EQ(q->kind, "tbf");
  EXPECT_EQ(q->rate_bits_per_second, 100000000u);
  EXPECT_EQ(q->burst_bytes, 32787u);
  EXPECT_EQ(q->overhead_bytes, 24u);
  // tc rounds what it prints: 12345678 bit/s shows as 12345Kbit, and that is all it keeps.
  auto odd = ParseTcQdisc(kTbfOdd, "");
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->rate_bits_per_second, 12345000u);
  EXPECT_EQ(odd->burst_bytes, 9999u);
  EXPECT_EQ(odd->overhead_bytes, 0u);
}

TEST(TcTextTest, HtbRateIsItsLargestClass) {
  auto q = ParseTcQdisc(kHtb, kHtbClasses);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->kind, "htb");
  EXPECT_EQ(q->rate_bits_per_second, 250000000u);
  EXPECT_EQ(q->overhead_bytes, 20u);
  auto no_classes = ParseTcQdisc(kHtb, "");
  ASSERT_TRUE(no_classes);
  EXPECT_EQ(no_classes->rate_bits_per_second, 0u);
}

TEST(TcTextTest, RootAmongChildrenAndOtherKinds) {
  auto mq = ParseTcQdisc(
      "qdisc fq_codel 0: parent :2 limit 10240p flows 1024\n"
      "qdisc mq 0: root \n"
      "qdisc fq_codel 0: parent :1 limit 10240p flows 1024\n",
      "");
  ASSERT_TRUE(mq);
  EXPECT_EQ(mq->kind, "mq");
  EXPECT_EQ(mq->rate_bits_per_second, 0u);
  EXPECT_EQ(ParseTcQdisc("qdisc noqueue 0: root refcnt 2 \n", "")->kind, "noqueue");
  EXPECT_FALSE(ParseTcQdisc("", ""));
  EXPECT_FALSE(ParseTcQdisc("qdisc fq_codel 0: parent :1 limit 10240p\n", ""));
  EXPECT_FALSE(ParseTcQdisc("Cannot find device \"eth9\"\n", ""));
}

// What nicbench writes reads back exactly, where tc's own text would round.
TEST(TcTextTest, RenderedReadsBackExactly) {
  for (const record::Qdisc& q :
       {record::Qdisc{"tbf", 12345678, 24, 32792}, record::Qdisc{"tbf", 100000000, 0, 1514},
        record::Qdisc{"tbf", 40000000000ULL, 0, 1 << 20}, record::Qdisc{"htb", 250000000, 20, 0},
        record::Qdisc{"htb", 999, 0, 0}, record::Qdisc{"noqueue", 0, 0, 0},
        record::Qdisc{"fq_codel", 0, 0, 0}}) {
    auto back = ParseTcQdisc(RenderTcQdisc(q), RenderTcClasses(q));
    ASSERT_TRUE(back) << RenderTcQdisc(q);
    EXPECT_EQ(back->kind, q.kind);
    EXPECT_EQ(back->rate_bits_per_second, q.rate_bits_per_second) << RenderTcQdisc(q);
    EXPECT_EQ(back->overhead_bytes, q.overhead_bytes);
    EXPECT_EQ(back->burst_bytes, q.burst_bytes);
  }
  EXPECT_EQ(RenderTcQdisc({"tbf", 100000000, 24, 32792}),
            "qdisc tbf 0: root refcnt 2 rate 100Mbit burst 32792b overhead 24\n");
  EXPECT_EQ(RenderTcClasses({"tbf", 100000000, 24, 32792}), "");
}

}  // namespace
}  // namespace nicbench::probes
