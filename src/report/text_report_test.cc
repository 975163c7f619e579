#include "report/text_report.h"

#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analysis/host_figures.h"
#include "record/json_test_records.h"
#include "report/format.h"

namespace nicbench::report {
namespace {

using record::Transport;
using record::testing::MakeBidirRun;
using record::testing::MakeFinding;
using record::testing::MakeReverseRun;
using record::testing::MakeSample;
using record::testing::MakeTcpRun;
using record::testing::MakeUdpRun;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(FormatTest, IperfUnitsKeepThreeFigures) {
  EXPECT_EQ(IperfBytes(12500000), "11.9 MBytes");
  EXPECT_EQ(IperfBytes(117440512), " 112 MBytes");
  EXPECT_EQ(IperfBytes(1.72 * 1024 * 1024 * 1024), "1.72 GBytes");
  EXPECT_EQ(IperfBitRate(941e6), " 941 Mbits/sec");
  EXPECT_EQ(IperfBitRate(14.8e9), "14.8 Gbits/sec");
  EXPECT_EQ(CompactCount(16000), "16k");
  EXPECT_EQ(CompactCount(16500), "16.5k");
  EXPECT_EQ(CompactCount(812), "812");
  EXPECT_FALSE(BitsPerSecond(100, 0).has_value());
  EXPECT_FALSE(BitsPerSecond(100, -1).has_value());
  EXPECT_DOUBLE_EQ(*BitsPerSecond(100, 2), 400);
}

TEST(TextIntervalTest, HeaderColumnsFollowTheTest) {
  EXPECT_EQ(RenderIntervalHeader(MakeTcpRun()),
            "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n");
  EXPECT_EQ(RenderIntervalHeader(MakeReverseRun()),
            "[ ID] Interval           Transfer     Bitrate\n");
  EXPECT_EQ(RenderIntervalHeader(MakeUdpRun()),
            "[ ID] Interval           Transfer     Bitrate         Total Datagrams\n");
  EXPECT_EQ(RenderIntervalHeader(MakeBidirRun()),
            "[ ID][Role] Interval           Transfer     Bitrate         Retr  Cwnd\n");
}

TEST(TextIntervalTest, TcpStreamSumAndHostLines) {
  const record::RunRecord run = MakeTcpRun();
  const std::string text = RenderIntervalLine(run, run.intervals[0], &run.local.samples[0],
                                              &run.remote.value().samples[0]);
  const std::vector<std::string> lines = Lines(text);
  ASSERT_EQ(lines.size(), 5u) << text;
  EXPECT_EQ(lines[0], "[  1]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec    2   14.1 KBytes");
  EXPECT_EQ(lines[1].substr(0, 5), "[  3]");
  EXPECT_EQ(lines[2], "[SUM]   0.00-1.00   sec  23.8 MBytes   200 Mbits/sec    4");
  EXPECT_EQ(lines[3], "       local  cpu1 97% si | nic irq 16k/s | retr 4 | drops 2");
  EXPECT_EQ(lines[4].substr(0, 14), "      remote  ");
}

TEST(TextIntervalTest, SeparatorBeforeLaterIntervalsWithSeveralStreams) {
  const record::RunRecord run = MakeTcpRun();
  EXPECT_EQ(Lines(RenderIntervalLine(run, run.intervals[1], nullptr, nullptr))[0],
            "- - - - - - - - - - - - - - - - - - - - - - - - -");
  const record::RunRecord single = MakeReverseRun();
  EXPECT_EQ(Lines(RenderIntervalLine(single, single.intervals[1], nullptr, nullptr)).size(), 1u);
}

TEST(TextIntervalTest, UdpReceiverShowsJitterAndLoss) {
  record::RunRecord run = MakeUdpRun();
  run.intervals[0].streams[0] = record::testing::MakeStream(1, false, 0, 1, 12400000, false);
  const std::string line = RenderIntervalLine(run, run.intervals[0], nullptr, nullptr);
  EXPECT_EQ(line,
            "[  1]   0.00-1.00   sec  11.8 MBytes  99.2 Mbits/sec  0.250 ms  5/12400 (0.04%)\n");
}

TEST(TextIntervalTest, BidirTagsEachDirection) {
  const record::RunRecord run = MakeBidirRun();
  const std::vector<std::string> lines =
      Lines(RenderIntervalLine(run, run.intervals[0], nullptr, nullptr));
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0].substr(0, 11), "[  1][TX-C]");
  EXPECT_EQ(lines[1].substr(0, 11), "[  3][RX-C]");
}

TEST(TextIntervalTest, UnknownCpuAndZeroLengthIntervalSayUnknown) {
  record::RunRecord run = MakeReverseRun();
  record::HostInterval sample = MakeSample(1, 1);
  sample.cpus = record::Measured<std::vector<record::CpuShare>>::Unknown(
      record::Missing::kPermissionDenied, "no /proc/stat");
  run.intervals[1].streams[0].end = run.intervals[1].streams[0].start;
  const std::string text = RenderIntervalLine(run, run.intervals[1], &sample, nullptr);
  EXPECT_TRUE(Contains(text, "cpu unknown (permission denied: no /proc/stat)")) << text;
  EXPECT_TRUE(Contains(text, "   - bits/sec")) << text;
  EXPECT_FALSE(Contains(text, "nan")) << text;
  EXPECT_FALSE(Contains(text, "inf")) << text;
}

TEST(TextSummaryTest, IperfSenderAndReceiverLines) {
  const std::string text = RenderSummary(MakeTcpRun());
  const std::vector<std::string> lines = Lines(text);
  ASSERT_GE(lines.size(), 8u);
  EXPECT_EQ(lines[1], "[ ID] Interval           Transfer     Bitrate         Retr");
  EXPECT_EQ(lines[2],
            "[  1]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec    4             sender");
  EXPECT_EQ(lines[3],
            "[  1]   0.00-2.00   sec  23.7 MBytes  99.2 Mbits/sec                  receiver");
  EXPECT_EQ(lines[6].substr(0, 5), "[SUM]");
  EXPECT_TRUE(Contains(lines[6], " 200 Mbits/sec    8             sender"));
}

TEST(TextSummaryTest, SlowestStreamAgainstAnEvenShare) {
  record::RunRecord run = MakeTcpRun();
  ASSERT_EQ(run.streams.size(), 2u);
  run.streams[1].bytes_received = run.streams[0].bytes_received / 4;  // a starved stream
  const double even = (run.streams[0].bytes_received + run.streams[1].bytes_received) / 2.0;
  const std::string text = RenderSummary(run);
  EXPECT_TRUE(Contains(text, fmt::format("Slowest of 2 streams: {} moved {} bytes, {:.2f} of an "
                                         "even share\n",
                                         run.streams[1].id, run.streams[1].bytes_received,
                                         run.streams[1].bytes_received / even)))
      << text;
  run.streams.resize(1);  // one stream: nothing to compare
  EXPECT_FALSE(Contains(RenderSummary(run), "Slowest")) << RenderSummary(run);
}

TEST(TextSummaryTest, EachEndShowsCostCoresInterruptsAndNic) {
  const std::string text = RenderSummary(MakeTcpRun());
  // 2 intervals x (0.30 + 0.97) CPU-s over 49,600,000 bytes received = 52.4 us/KB.
  // The analysis figures, in CPU-s/GB: the whole host's (51.2 CPU-s/GB is 52.4 CPU-us/KB),
  // then the transfer's own.
  EXPECT_TRUE(Contains(text, "Host busy    51.2 CPU-s/GB (si 36.3")) << text;
  EXPECT_TRUE(Contains(text, "Transfer     54.4 CPU-s/GB (nicbench's own time")) << text;
  EXPECT_TRUE(Contains(text, "Busiest      cpu1 97% (si 90, hi 4, sy 2), cpu0 30%")) << text;
  EXPECT_TRUE(Contains(text, "45 eth0-rx-0 [NIC] 16k/s, mostly cpu1")) << text;
  EXPECT_TRUE(Contains(text, "softnet 4 dropped, 14 squeezed")) << text;
  EXPECT_TRUE(Contains(text, "link 100 Mbit/s, full duplex, autoneg on, MTU 1500")) << text;
  EXPECT_TRUE(Contains(text, "offloads off: tcp-segmentation-offload")) << text;
  EXPECT_TRUE(Contains(text, "rings rx 256/4096 tx 256/4096; IRQ MSI-X, 2 vectors; qdisc fq_codel"))
      << text;
  EXPECT_TRUE(Contains(text, "coalescing unknown (permission denied: needs CAP_NET_ADMIN)"))
      << text;
  EXPECT_TRUE(Contains(text, "firmware unknown (not supported)")) << text;
  EXPECT_TRUE(Contains(text, "Local end: client h1")) << text;
  EXPECT_TRUE(Contains(text, "Remote end: server h2")) << text;
}

TEST(TextSummaryTest, StockPeerAndHealthyRun) {
  const std::string text = RenderSummary(MakeReverseRun(false));
  EXPECT_TRUE(Contains(text, "Remote end: unknown (not reported by peer: peer is iperf 3.12)"))
      << text;
  EXPECT_EQ(Lines(text).back(), "No problems found.");
}

TEST(TextSummaryTest, FindingsMostSevereFirst) {
  record::RunRecord run = MakeTcpRun();
  run.findings.push_back(MakeFinding(record::Severity::kNotice, "offloads-off"));
  run.findings.push_back(MakeFinding(record::Severity::kCritical, "link-rate-limited"));
  const std::string text = RenderSummary(run);
  const size_t critical = text.find("[CRITICAL] Title of link-rate-limited (link-rate-limited)");
  const size_t notice = text.find("[NOTICE] Title of offloads-off");
  ASSERT_NE(critical, std::string::npos) << text;
  ASSERT_NE(notice, std::string::npos) << text;
  EXPECT_LT(critical, notice);
  EXPECT_TRUE(Contains(text, "      evidence: goodput 99.2 Mbit/s\n"));
  EXPECT_TRUE(Contains(text, "      next step: Check the cable and the switch port.\n"));
  EXPECT_FALSE(Contains(text, "No problems found."));
}

TEST(TextSummaryTest, UdpLinesAndError) {
  record::RunRecord run = MakeUdpRun();
  std::string text = RenderSummary(run);
  EXPECT_TRUE(Contains(text, "Jitter    Lost/Total Datagrams")) << text;
  EXPECT_TRUE(Contains(text, "0.300 ms  200/25000 (0.8%)  receiver")) << text;
  run.error = "the server has terminated";
  text = RenderSummary(run);
  EXPECT_EQ(Lines(text)[0], "error: the server has terminated");
}

TEST(TextSummaryTest, LoopbackAndMissingSamples) {
  record::RunRecord run = MakeTcpRun(false);
  run.local.nic = record::NicFacts{};
  run.local.nic.interface = "lo";
  run.local.nic.loopback = true;
  run.local.nic.mtu = uint32_t{65536};
  run.local.samples.clear();
  const std::string text = RenderSummary(run);
  EXPECT_TRUE(Contains(text, "lo: loopback, no NIC; MTU 65536")) << text;
  EXPECT_TRUE(Contains(text, "Host busy    unknown (no host samples)")) << text;
}

TEST(HostViewTest, BusiestCoreAndKinds) {
  const auto core = analysis::BusiestCore(MakeSample(0, 1));
  ASSERT_TRUE(core.has_value());
  EXPECT_EQ(core->cpu, 1);
  EXPECT_DOUBLE_EQ(core->busy_percent, 97);
  EXPECT_STREQ(core->kinds[0].name, "si");
  const auto lines = analysis::TopIrqLines({MakeSample(0, 1), MakeSample(1, 3)}, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].total, 32000u);
  EXPECT_DOUBLE_EQ(lines[0].per_second, 32000.0 / 3);
}

}  // namespace
}  // namespace nicbench::report
