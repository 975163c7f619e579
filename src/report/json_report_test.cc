#include "report/json_report.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "record/json.h"
#include "record/json_test_records.h"
#include "support/run_binary.h"

namespace nicbench::report {
namespace {

using nlohmann::json;
using record::Direction;
using record::Transport;
using record::testing::MakeBidirRun;
using record::testing::MakeFinding;
using record::testing::MakeReverseRun;
using record::testing::MakeTcpRun;
using record::testing::MakeUdpRun;

json Parse(const std::string& text) { return json::parse(text); }

json ReadFixture(const std::string& name) {
  std::ifstream in(nicbench::testing::TestdataDir() + "/iperf3-json/" + name);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return json::parse(buffer.str());
}

// Walks a document; fails on any number that is not finite.
void ExpectAllFinite(const json& j, const std::string& path = "") {
  if (j.is_number_float()) {
    EXPECT_TRUE(std::isfinite(j.get<double>())) << path;
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) ExpectAllFinite(value, path + "." + key);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      ExpectAllFinite(j[i], path + "[" + std::to_string(i) + "]");
  }
}

// Every member iperf3 wrote must be in ours at the same place with a compatible type; a null
// in ours must carry its reason in the enclosing "unknown". Arrays compare element by element
// up to the shorter length.
void ExpectHasIperfShape(const json& ours, const json& theirs, const std::string& path) {
  if (theirs.is_object()) {
    ASSERT_TRUE(ours.is_object()) << path << " should be an object";
    for (const auto& [key, value] : theirs.items()) {
      if (key == "sndbuf_actual" || key == "rcvbuf_actual") continue;  // not recorded
      ASSERT_TRUE(ours.contains(key)) << path << "." << key << " is missing";
      if (ours[key].is_null() && !value.is_null()) {
        EXPECT_TRUE(ours.contains("unknown") && ours["unknown"].contains(key))
            << path << "." << key << " is null without a reason";
        continue;
      }
      ExpectHasIperfShape(ours[key], value, path + "." + key);
    }
  } else if (theirs.is_array()) {
    ASSERT_TRUE(ours.is_array()) << path << " should be an array";
    for (size_t i = 0; i < theirs.size() && i < ours.size(); ++i) {
      ExpectHasIperfShape(ours[i], theirs[i], path + "[" + std::to_string(i) + "]");
    }
  } else if (theirs.is_number()) {
    EXPECT_TRUE(ours.is_number()) << path << " should be a number";
  } else {
    EXPECT_EQ(ours.type_name(), std::string(theirs.type_name())) << path;
  }
}

TEST(JsonReportTest, HasIperf3ShapeForEachKindOfTest) {
  struct JsonCase {
    record::RunRecord run;
    const char* fixture;
  };
  const JsonCase cases[] = {
      {MakeTcpRun(), "tcp-P2-O1.json"},   {MakeUdpRun(), "udp.json"},
      {MakeBidirRun(), "bidir.json"},     {MakeBidirRun(Transport::kUdp), "udp-bidir.json"},
      {MakeReverseRun(), "reverse.json"},
  };
  for (const JsonCase& c : cases) {
    SCOPED_TRACE(c.fixture);
    const json ours = Parse(RenderJson(c.run));
    ExpectHasIperfShape(ours, ReadFixture(c.fixture), "");
  }
}

// WriteJson as RenderJson would have printed it, through a file.
std::string Written(const record::RunRecord& run) {
  std::FILE* f = std::tmpfile();
  EXPECT_NE(f, nullptr);
  if (f == nullptr) return {};
  WriteJson(run, f);
  std::string out;
  std::rewind(f);
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  std::fclose(f);
  return out;
}

TEST(JsonReportTest, WriteJsonWritesExactlyWhatRenderJsonRenders) {
  record::RunRecord stock = MakeReverseRun(false);  // remote unknown: the "unknown" member
  stock.peer.server_output_text = "Accepted connection from 198.18.0.1\n";
  stock.peer.server_output_json = R"({"start":{"version":"iperf 3.12"}})";
  record::RunRecord odd = MakeTcpRun();
  odd.spec.title = "bad \xff utf-8";  // replaced in both, never an exception
  odd.spec.extra_data = "x";
  odd.error = "late failure";
  record::RunRecord empty = MakeTcpRun(false);
  empty.intervals.clear();
  empty.streams.clear();
  for (const record::RunRecord* run : {&stock, &odd, &empty}) {
    EXPECT_EQ(Written(*run), RenderJson(*run));
  }
  for (const record::RunRecord& run : {MakeTcpRun(), MakeUdpRun(), MakeBidirRun(),
                                       MakeBidirRun(Transport::kUdp), MakeReverseRun()}) {
    EXPECT_EQ(Written(run), RenderJson(run));
  }
}

TEST(JsonReportTest, ErrorRecordHasIperfErrorShape) {
  record::RunRecord run = MakeTcpRun(false);
  run.intervals.clear();
  run.streams.clear();
  run.connections.clear();
  run.error = "unable to connect to server: Connection refused";
  const json ours = Parse(RenderJson(run));
  ExpectHasIperfShape(ours, ReadFixture("error.json"), "");
  EXPECT_EQ(ours["error"], "unable to connect to server: Connection refused");
  EXPECT_TRUE(ours["end"].empty());
}

TEST(JsonReportTest, NoErrorMemberWhenTheTestSucceeded) {
  EXPECT_FALSE(Parse(RenderJson(MakeTcpRun())).contains("error"));
}

TEST(JsonReportTest, StartValues) {
  const json start = Parse(RenderJson(MakeTcpRun()))["start"];
  EXPECT_EQ(start["connected"].size(), 2u);
  EXPECT_EQ(start["connected"][1]["socket"], 3);
  EXPECT_EQ(start["connected"][1]["local_port"], 40002);
  EXPECT_EQ(start["timestamp"]["time"], "Mon, 30 Nov 2026 09:02:48 GMT");
  EXPECT_EQ(start["timestamp"]["timesecs"], 1796029368);
  EXPECT_EQ(start["connecting_to"]["host"], "198.18.0.2");
  EXPECT_EQ(start["tcp_mss_default"], 1448);
  EXPECT_EQ(start["system_info"], "Linux h1 6.1.0-18-amd64");
  const json& t = start["test_start"];
  EXPECT_EQ(t["protocol"], "TCP");
  EXPECT_EQ(t["num_streams"], 2);
  EXPECT_EQ(t["blksize"], 131072);
  EXPECT_EQ(t["duration"], 2);
  EXPECT_EQ(t["reverse"], 0);
}

TEST(JsonReportTest, IntervalValues) {
  const json doc = Parse(RenderJson(MakeTcpRun()));
  const json& s = doc["intervals"][1]["streams"][0];
  EXPECT_EQ(s["socket"], 1);
  EXPECT_DOUBLE_EQ(s["start"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(s["seconds"].get<double>(), 1.0);
  EXPECT_EQ(s["bytes"], 12500000);
  EXPECT_DOUBLE_EQ(s["bits_per_second"].get<double>(), 100e6);
  EXPECT_EQ(s["snd_cwnd"], 14480);  // 10 segments of 1448 bytes
  EXPECT_EQ(s["rtt"], 520);
  EXPECT_EQ(s["retransmits"], 2);
  EXPECT_EQ(s["sender"], true);
  const json& sum = doc["intervals"][1]["sum"];
  EXPECT_EQ(sum["bytes"], 25000000);
  EXPECT_DOUBLE_EQ(sum["bits_per_second"].get<double>(), 200e6);
  EXPECT_EQ(sum["retransmits"], 4);
}

TEST(JsonReportTest, EndSumsAreBytesTimesEightOverSeconds) {
  const json end = Parse(RenderJson(MakeTcpRun()))["end"];
  for (const char* key : {"sum_sent", "sum_received"}) {
    const json& sum = end[key];
    EXPECT_DOUBLE_EQ(sum["bits_per_second"].get<double>(),
                     sum["bytes"].get<double>() * 8 / sum["seconds"].get<double>())
        << key;
  }
  EXPECT_EQ(end["sum_sent"]["bytes"], 50000000);
  EXPECT_EQ(end["sum_received"]["bytes"], 49600000);
  EXPECT_EQ(end["sum_sent"]["retransmits"], 8);
  EXPECT_EQ(end["streams"][0]["sender"]["max_snd_cwnd"], 14480);
  EXPECT_EQ(end["streams"][0]["sender"]["max_snd_wnd"], 65536);
  EXPECT_EQ(end["streams"][0]["receiver"]["bytes"], 24800000);
  EXPECT_DOUBLE_EQ(end["cpu_utilization_percent"]["host_total"].get<double>(), 40.5);
  EXPECT_DOUBLE_EQ(end["cpu_utilization_percent"]["remote_total"].get<double>(), 20.0);
  EXPECT_EQ(end["sender_tcp_congestion"], "cubic");
  EXPECT_EQ(end["receiver_tcp_congestion"], "bbr");
}

TEST(JsonReportTest, UdpLossAndJitter) {
  const json end = Parse(RenderJson(MakeUdpRun()))["end"];
  const json& udp = end["streams"][0]["udp"];
  EXPECT_EQ(udp["lost_packets"], 200);
  EXPECT_EQ(udp["packets"], 25000);
  EXPECT_DOUBLE_EQ(udp["lost_percent"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(udp["jitter_ms"].get<double>(), 0.3);
  EXPECT_FALSE(end.contains("sender_tcp_congestion"));
  const json doc = Parse(RenderJson(MakeBidirRun(Transport::kUdp)));
  const json& received = doc["intervals"][0]["sum_bidir_reverse"];
  EXPECT_EQ(received["lost_packets"], 5);
  EXPECT_DOUBLE_EQ(received["jitter_ms"].get<double>(), 0.25);
}

TEST(JsonReportTest, BidirSumsSplitByDirection) {
  const json doc = Parse(RenderJson(MakeBidirRun()));
  EXPECT_EQ(doc["intervals"][0]["sum"]["bytes"], 12500000);
  EXPECT_EQ(doc["intervals"][0]["sum"]["sender"], true);
  EXPECT_EQ(doc["intervals"][0]["sum_bidir_reverse"]["bytes"], 12400000);
  EXPECT_EQ(doc["intervals"][0]["sum_bidir_reverse"]["sender"], false);
  EXPECT_EQ(doc["end"]["sum_sent"]["bytes"], 25000000);
  EXPECT_EQ(doc["end"]["sum_sent_bidir_reverse"]["bytes"], 25000000);
  EXPECT_EQ(doc["end"]["sum_received_bidir_reverse"]["sender"], false);
  EXPECT_EQ(doc["start"]["test_start"]["bidir"], 1);
}

TEST(JsonReportTest, StockIperfPeerKeepsIperf3MembersWithReasonsBeside) {
  record::RunRecord run = MakeReverseRun(false);
  const json doc = Parse(RenderJson(run));
  EXPECT_TRUE(doc["remote"].is_null());
  EXPECT_EQ(doc["unknown"]["remote"], "not reported by peer: peer is iperf 3.12");
  // iperf3's members keep iperf3's 0 where the value is unknown; "unknown" says why.
  const json& cpu = doc["end"]["cpu_utilization_percent"];
  EXPECT_EQ(cpu["remote_total"], 0);
  EXPECT_NE(cpu["unknown"]["remote_total"].get<std::string>().find("not reported"),
            std::string::npos);
  // Reverse: the peer sends, so its congestion control and window are what we lack.
  EXPECT_EQ(doc["end"]["sender_tcp_congestion"], "");
  EXPECT_TRUE(doc["end"]["unknown"].contains("sender_tcp_congestion"));
  EXPECT_EQ(doc["end"]["receiver_tcp_congestion"], "cubic");
  const json& sender = doc["end"]["streams"][0]["sender"];
  EXPECT_EQ(sender["max_snd_wnd"], 0);
  EXPECT_NE(sender["unknown"]["max_snd_wnd"].get<std::string>().find("not reported"),
            std::string::npos);
  EXPECT_EQ(doc["start"]["test_start"]["reverse"], 1);

  // What the stock peer's results did carry is used: its CPU and congestion control.
  run.peer.cpu = record::CpuUtilization{42.5, 2.5, 40};
  run.peer.congestion_used = "bbr";
  run.peer.server_output_text = "Accepted connection from 198.18.0.1\n";
  const json with_peer = Parse(RenderJson(run));
  EXPECT_EQ(with_peer["end"]["cpu_utilization_percent"]["remote_total"], 42.5);
  EXPECT_FALSE(with_peer["end"]["cpu_utilization_percent"].contains("unknown"));
  EXPECT_EQ(with_peer["end"]["sender_tcp_congestion"], "bbr");
  EXPECT_EQ(with_peer["server_output_text"], "Accepted connection from 198.18.0.1\n");
}

TEST(JsonReportTest, ZeroLengthIntervalAndNaNGiveNoNaN) {
  record::RunRecord run = MakeTcpRun();
  run.intervals[1].streams[0].end = run.intervals[1].streams[0].start;
  run.intervals[1].end = run.intervals[1].start;
  run.streams[0].seconds_received = 0;
  run.local.samples[0].cpus.value()[0].user = std::numeric_limits<double>::quiet_NaN();
  run.local.cpu.value().total_percent = std::numeric_limits<double>::infinity();
  run.test_seconds = std::numeric_limits<double>::quiet_NaN();
  const nlohmann::ordered_json built = BuildJson(run);
  ExpectAllFinite(json::parse(built.dump()));
  const std::string text = RenderJson(run);
  // A bare nan/inf/NaN/Infinity token where a value belongs.
  EXPECT_FALSE(std::regex_search(text, std::regex(R"([:\[,]\s*-?(nan|inf|NaN|Infinity))"))) << text;
  const json doc = Parse(text);
  // iperf3's members keep a number (iperf3's 0) with the reason beside it.
  const json& s = doc["intervals"][1]["streams"][0];
  EXPECT_EQ(s["bits_per_second"], 0);
  EXPECT_EQ(s["unknown"]["bits_per_second"], "not present: zero-length interval");
  EXPECT_EQ(doc["end"]["streams"][0]["receiver"]["bits_per_second"], 0);
  EXPECT_EQ(doc["end"]["cpu_utilization_percent"]["host_total"], 0);
  EXPECT_TRUE(doc["end"]["cpu_utilization_percent"]["unknown"].contains("host_total"));
  // nicbench's own members are null with the reason.
  EXPECT_TRUE(doc["local"]["samples"][0]["cpus"][0]["user"].is_null());
}

TEST(JsonReportTest, EveryDocumentIsFinite) {
  for (const record::RunRecord& run :
       {MakeTcpRun(), MakeUdpRun(false), MakeBidirRun(), MakeReverseRun()}) {
    ExpectAllFinite(Parse(RenderJson(run)));
  }
}

TEST(JsonReportTest, LocalAndRemoteReadBackAsEndpointRecords) {
  const json doc = Parse(RenderJson(MakeTcpRun()));
  const Result<record::EndpointRecord> local = record::EndpointFromJson(doc["local"]);
  ASSERT_TRUE(local.has_value()) << local.error().message;
  EXPECT_EQ(json(*local), json(MakeTcpRun().local));
  const Result<record::EndpointRecord> remote = record::EndpointFromJson(doc["remote"]);
  ASSERT_TRUE(remote.has_value()) << remote.error().message;
  EXPECT_EQ(remote->role, record::Role::kServer);
  EXPECT_TRUE(doc["local"]["nic"]["coalescing"].is_null());
  EXPECT_EQ(doc["local"]["nic"]["unknown"]["coalescing"], "permission denied: needs CAP_NET_ADMIN");
}

TEST(JsonReportTest, NicbenchMembersAndFindings) {
  record::RunRecord run = MakeTcpRun();
  run.findings.push_back(MakeFinding(record::Severity::kWarning, "link-rate-limited"));
  run.spec.title = "msk laptop";
  const json doc = Parse(RenderJson(run));
  EXPECT_EQ(doc["nicbench"]["schema_version"], 1);
  EXPECT_EQ(doc["nicbench"]["version"], "0.1.0");
  EXPECT_EQ(doc["nicbench"]["spec"]["direction"], "forward");
  EXPECT_EQ(doc["title"], "msk laptop");
  ASSERT_EQ(doc["findings"].size(), 1u);
  EXPECT_EQ(doc["findings"][0]["severity"], "warning");
  EXPECT_EQ(doc["findings"][0]["evidence"][1], "link 100 Mbit/s");
}

TEST(JsonReportTest, SlowestStreamPerDirection) {
  record::RunRecord run = MakeTcpRun();
  run.streams[0].bytes_received = 1000;
  run.streams[1].bytes_received = 3000;
  json doc = Parse(RenderJson(run));
  const json& all = doc["nicbench"]["slowest_stream"]["all"];
  EXPECT_EQ(all["id"], run.streams[0].id);
  EXPECT_EQ(all["bytes"], 1000);
  EXPECT_DOUBLE_EQ(all["share_of_even"].get<double>(), 0.5);
  EXPECT_EQ(all["streams"], 2);
  EXPECT_EQ(all["counted_by"], "receiver");
  doc = Parse(RenderJson(MakeBidirRun()));
  EXPECT_TRUE(doc["nicbench"]["slowest_stream"].contains("local_sends"));
  EXPECT_TRUE(doc["nicbench"]["slowest_stream"].contains("local_receives"));
  run.streams.resize(1);
  EXPECT_TRUE(Parse(RenderJson(run))["nicbench"]["slowest_stream"]["all"].is_null());
}

TEST(JsonReportTest, KeepsIperfMemberOrder) {
  const std::string text = RenderJson(MakeTcpRun());
  EXPECT_LT(text.find("\"start\""), text.find("\"intervals\""));
  EXPECT_LT(text.find("\"intervals\""), text.find("\"end\""));
  EXPECT_EQ(text.back(), '\n');
}

TEST(JsonReportTest, InvalidUtf8IsReplacedNotThrown) {
  record::RunRecord run = MakeTcpRun(false);
  run.local.host.hostname = std::string("bad\xff\xfename");
  std::string text;
  ASSERT_NO_THROW(text = RenderJson(run));
  EXPECT_NO_THROW(Parse(text));
}

TEST(JsonReportTest, LinesHoldOneIperf3DocumentPerRun) {
  const std::string text = RenderJsonLines({MakeTcpRun(), MakeReverseRun()});
  const size_t newline = text.find('\n');
  ASSERT_NE(newline, std::string::npos);
  ASSERT_EQ(text.back(), '\n');
  const json forward = Parse(text.substr(0, newline));
  const json reverse = Parse(text.substr(newline + 1));
  EXPECT_EQ(forward["start"]["test_start"]["reverse"], 0);
  EXPECT_EQ(reverse["start"]["test_start"]["reverse"], 1);
  EXPECT_EQ(forward["nicbench"]["version"], reverse["nicbench"]["version"]);
  EXPECT_TRUE(forward.contains("end") && reverse.contains("intervals"));
}

TEST(JsonReportTest, ServerDocumentNamesTheAcceptedConnection) {
  record::RunRecord run = MakeTcpRun();
  run.local.role = record::Role::kServer;
  const json start = Parse(RenderJson(run))["start"];
  EXPECT_FALSE(start.contains("connecting_to"));
  EXPECT_EQ(start["accepted_connection"]["host"], "198.18.0.2");
}

}  // namespace
}  // namespace nicbench::report
