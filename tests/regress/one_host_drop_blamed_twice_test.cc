// Bug (issue 27, item 4): on one host both ends read the same drop counters (loopback: the same
// /proc/net/snmp; any shared host: the same softnet_stat), and each end's samples carried them,
// so `Udp.RcvbufErrors +124085` was reported as socket buffer drops at the sender and at the
// receiver of one loopback test. Such a counter is now judged once and named once: a receive
// buffer's drops at the receiver, a host-wide counter at the host.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"

namespace nicbench::regress {
namespace {

using namespace diagnosis::testing;

// A forward loopback UDP test on one host: both ends' samples carry the same counters.
record::RunRecord OneHostRun() {
  record::RunRecord run = MakeRun(900e6);
  run.spec.transport = record::Transport::kUdp;
  Remote(run).host.hostname = run.local.host.hostname;
  for (auto* end : {&run.local, &Remote(run)}) {
    end->nic = LoopbackNic();
    EachSample(*end, [](record::HostInterval& s) {
      s.net_counters =
          std::map<std::string, int64_t>{{"Udp.RcvbufErrors", 12408}, {"Tcp.RetransSegs", 0}};
      s.softnet = std::vector<record::SoftnetDelta>{{0, 1000, 5, 1}};
    });
  }
  return run;
}

std::vector<record::Finding> WithId(const std::vector<record::Finding>& findings,
                                    const std::string& id) {
  std::vector<record::Finding> out;
  for (const auto& f : findings) {
    if (f.id == id) out.push_back(f);
  }
  return out;
}

TEST(OneHostDropBlamedTwice, AReceiveBufferCounterIsBlamedOnTheReceiverOnce) {
  const auto findings = diagnosis::Diagnose(OneHostRun());
  const auto socket = WithId(findings, "socket-buffer-drops");
  ASSERT_EQ(socket.size(), 1u);
  EXPECT_NE(socket[0].title.find("remote server (receiver)"), std::string::npos) << socket[0].title;
  ASSERT_EQ(socket[0].evidence.size(), 1u);
  EXPECT_NE(socket[0].evidence[0].find("+124080"), std::string::npos) << socket[0].evidence[0];
}

TEST(OneHostDropBlamedTwice, TheHostsSoftnetDropsAreNamedOnce) {
  const auto softnet = WithId(diagnosis::Diagnose(OneHostRun()), "softnet-drops");
  ASSERT_EQ(softnet.size(), 1u);
  EXPECT_NE(softnet[0].title.find("host alpha (both ends)"), std::string::npos) << softnet[0].title;
}

TEST(OneHostDropBlamedTwice, TwoHostsKeepTheirOwnCounters) {
  record::RunRecord run = OneHostRun();
  Remote(run).host.hostname = record::Measured<std::string>(std::string("beta"));
  EXPECT_EQ(WithId(diagnosis::Diagnose(run), "socket-buffer-drops").size(), 2u);
}

}  // namespace
}  // namespace nicbench::regress
