#include "analysis/stream_limits.h"

#include <gtest/gtest.h>

#include "analysis/stream_sender.h"
#include "analysis/test_runs.h"

namespace nicbench::analysis {
namespace {

using testing::MakeRun;

// Sets the sender's cumulative chrono times at the end of interval i to i+1 times the steps.
void Chrono(record::EndpointRecord& sender, uint64_t busy_us_per_s, uint64_t rwnd_us_per_s,
            uint64_t sndbuf_us_per_s) {
  for (size_t i = 0; i < sender.intervals.size(); ++i) {
    auto& info = sender.intervals[i].streams[0].tcp_info;
    record::TcpInfoSample t = info.value();
    t.busy_time_us = busy_us_per_s * (i + 1);
    t.rwnd_limited_us = rwnd_us_per_s * (i + 1);
    t.sndbuf_limited_us = sndbuf_us_per_s * (i + 1);
    info = t;
  }
}

TEST(StreamLimits, ReceiveWindowLimited) {
  record::RunRecord run = MakeRun();
  Chrono(run.local, 990000, 800000, 0);
  const auto limits = StreamLimits(run);
  ASSERT_EQ(limits.size(), 1u);
  EXPECT_EQ(limits[0].id, 1);
  EXPECT_TRUE(limits[0].local_sends);
  EXPECT_EQ(limits[0].limit, Limit::kReceiveWindow);
  EXPECT_DOUBLE_EQ(limits[0].seconds, 4);
  EXPECT_NEAR(limits[0].rwnd_limited_seconds, 3.2, 1e-9);
  EXPECT_NEAR(limits[0].network_seconds, 0.76, 1e-9);
  EXPECT_NEAR(limits[0].application_seconds, 0.04, 1e-9);
  EXPECT_NEAR(limits[0].limit_share, 0.8, 1e-9);
}

TEST(StreamLimits, EachCause) {
  struct LimitCase {
    uint64_t busy, rwnd, sndbuf;
    Limit limit;
  };
  for (const LimitCase& c : {LimitCase{1000000, 0, 0, Limit::kNetwork},
                             LimitCase{1000000, 0, 700000, Limit::kSendBuffer},
                             LimitCase{200000, 0, 0, Limit::kApplication}}) {
    record::RunRecord run = MakeRun();
    Chrono(run.local, c.busy, c.rwnd, c.sndbuf);
    const auto limits = StreamLimits(run);
    ASSERT_EQ(limits.size(), 1u);
    EXPECT_EQ(LimitName(limits[0].limit), std::string(LimitName(c.limit)));
  }
}

TEST(StreamLimits, TheOmittedWarmUpIsTakenOff) {
  record::RunRecord run = MakeRun();
  Chrono(run.local, 1000000, 0, 0);
  // The first second was all receive window, then none: omitted, it does not count.
  for (auto& iv : run.local.intervals) {
    auto t = iv.streams[0].tcp_info.value();
    t.rwnd_limited_us = 900000;
    iv.streams[0].tcp_info = t;
  }
  run.local.intervals[0].omitted = true;
  const auto limits = StreamLimits(run);
  ASSERT_EQ(limits.size(), 1u);
  EXPECT_DOUBLE_EQ(limits[0].seconds, 3);
  EXPECT_DOUBLE_EQ(limits[0].rwnd_limited_seconds, 0);
  EXPECT_EQ(limits[0].limit, Limit::kNetwork);
}

TEST(StreamLimits, TheRemoteSenderAndWhatCannotBeJudged) {
  testing::RunShape shape;
  shape.direction = record::Direction::kReverse;
  record::RunRecord run = MakeRun(shape);
  EXPECT_TRUE(StreamLimits(run).empty());  // busy time 0: a kernel before 4.10
  Chrono(run.remote.value(), 1000000, 0, 0);
  const auto limits = StreamLimits(run);
  ASSERT_EQ(limits.size(), 1u);
  EXPECT_FALSE(limits[0].local_sends);
  run.spec.transport = record::Transport::kUdp;
  EXPECT_TRUE(StreamLimits(run).empty());
}

// The sender's TCP figures of a stream (stream_sender.h), from this end's totals or the peer's
// view; here beside the other per-stream TCP figures.
record::IntervalRecord PeerSenderInterval(int id, uint32_t rtt_us, uint32_t cwnd, bool omitted) {
  record::TcpInfoSample t;
  t.rtt_us = rtt_us;
  t.snd_cwnd = cwnd;
  t.snd_mss = 1000;
  record::StreamInterval s;
  s.id = id;
  s.sender = true;
  s.tcp_info = t;
  record::IntervalRecord i;
  i.omitted = omitted;
  i.streams = {s};
  return i;
}

TEST(StreamSenderTcp, APeerSentStreamComesFromThePeersViewLeavingOutOmitted) {
  record::RunRecord run;
  record::EndpointRecord peer;
  peer.intervals = {PeerSenderInterval(1, 900, 90, /*omitted=*/true),
                    PeerSenderInterval(1, 100, 10, false), PeerSenderInterval(1, 301, 30, false),
                    PeerSenderInterval(3, 5, 5, false)};
  run.remote = peer;
  record::StreamTotals received;
  received.id = 1;
  received.sender = false;
  const SenderTcp tcp = StreamSenderTcp(run, received);
  EXPECT_EQ(tcp.max_snd_cwnd.value(), 30'000u);
  EXPECT_EQ(tcp.min_rtt_us.value(), 100u);
  EXPECT_EQ(tcp.max_rtt_us.value(), 301u);
  EXPECT_EQ(tcp.mean_rtt_us.value(), 200u) << "the mean of the counted samples, truncated";
}

TEST(StreamSenderTcp, OurOwnSendersAndAPeerWithoutAViewKeepTheRecordsTotals) {
  record::RunRecord run;
  record::StreamTotals sent;
  sent.id = 1;
  sent.sender = true;
  sent.mean_rtt_us = 42;
  EXPECT_EQ(StreamSenderTcp(run, sent).mean_rtt_us.value(), 42u) << "an older record's mean";
  sent.rtt_sum_us = 601;
  sent.rtt_samples = 3;
  EXPECT_EQ(StreamSenderTcp(run, sent).mean_rtt_us.value(), 200u)
      << "the mean of the recorded samples, truncated";
  record::StreamTotals received;
  received.id = 1;
  EXPECT_FALSE(StreamSenderTcp(run, received).mean_rtt_us.known()) << "a stock iperf3 peer";
}

}  // namespace
}  // namespace nicbench::analysis
