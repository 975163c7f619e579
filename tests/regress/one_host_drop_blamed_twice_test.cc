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

// The drop ladder read the same host counters at both ends too: its evidence listed the
// socket's drops at the sender and at the receiver, and its title blamed the first end it
// looked at, the sender.
TEST(OneHostDropBlamedTwice, TheDropLadderNamesTheSocketsDropsOnceAtTheReceiver) {
  record::RunRecord run = OneHostRun();
  for (auto* end : {&run.local, &Remote(run)}) {
    EachSample(*end, [](record::HostInterval& s) {
      s.softnet = std::vector<record::SoftnetDelta>{{0, 1000, 0, 0}};
    });
  }
  const auto ladder = WithId(diagnosis::Diagnose(run), "drop-ladder");
  ASSERT_EQ(ladder.size(), 1u);
  EXPECT_NE(ladder[0].title.find("the socket at the remote server (receiver) (124080 dropped"),
            std::string::npos)
      << ladder[0].title;
  int socket_lines = 0;
  for (const std::string& e : ladder[0].evidence) {
    socket_lines += e.find("socket 124080") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(socket_lines, 1) << "the host's counter is shown once";
}

TEST(OneHostDropBlamedTwice, TheDropLadderNamesTheHostsSoftnetDropsOnce) {
  const auto ladder = WithId(diagnosis::Diagnose(OneHostRun()), "drop-ladder");
  ASSERT_EQ(ladder.size(), 1u);
  EXPECT_NE(ladder[0].title.find("the softnet backlog at the host alpha (both ends)"),
            std::string::npos)
      << ladder[0].title;
  int softnet_lines = 0;
  for (const std::string& e : ladder[0].evidence) {
    softnet_lines += e.find("softnet backlog 50") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(softnet_lines, 1) << "the host's counter is shown once";
}

TEST(OneHostDropBlamedTwice, TwoHostsKeepTheirOwnCounters) {
  record::RunRecord run = OneHostRun();
  Remote(run).host.hostname = record::Measured<std::string>(std::string("beta"));
  const auto findings = diagnosis::Diagnose(run);
  EXPECT_EQ(WithId(findings, "socket-buffer-drops").size(), 2u);
  const auto ladder = WithId(findings, "drop-ladder");
  ASSERT_EQ(ladder.size(), 1u);
  int softnet_lines = 0;
  for (const std::string& e : ladder[0].evidence) {
    softnet_lines += e.find("softnet backlog 50") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(softnet_lines, 2) << "each host's own counter";
}

}  // namespace
}  // namespace nicbench::regress
