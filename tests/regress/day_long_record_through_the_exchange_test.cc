// Bug: the client caps the server's results at 16 MiB, and the server's record grew by about
// 4.6 KB per interval per stream (more on a host with many CPUs and IRQ lines), so a test
// longer than about an hour at 1 s intervals was refused at the end, and both ends' memory grew
// without bound. The engine now keeps at most a limit of intervals and host samples (judged by
// the size of the first), merging pairs as the limit is reached.
//
// This builds the record of a 24-hour test at 1 s intervals with 4 streams on a 16-CPU host,
// through the real IntervalSampler and the observer's merge policy, and sends it through the
// real results exchange (EncodeResults, SendJson, ReadJson with the client's cap,
// DecodeResultsJson, EndpointFromJson).
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/measure/host_observer.h"
#include "engine/measure/interval_sampler.h"
#include "protocol/control_channel.h"
#include "protocol/results.h"
#include "record/json.h"
#include "record/merge.h"

namespace nicbench::regress {
namespace {

using namespace std::chrono_literals;

constexpr int kCpus = 16, kStreams = 4;
constexpr int kSeconds = 24 * 3600;

// A host sample of a busy 16-CPU host: every CPU, 30 IRQ lines, softirqs, 60 counters.
record::HostInterval BigSample(double start, double end) {
  record::HostInterval s;
  s.start = start;
  s.end = end;
  std::vector<record::CpuShare> cpus;
  for (int c = 0; c < kCpus; ++c) cpus.push_back({c, 5.25, 0, 10.5, 80.125, 0, 0.5, 3.625, 0});
  s.cpus = cpus;
  s.cpu_total = record::CpuShare{-1, 5, 0, 10, 80, 0, 1, 4, 0};
  std::vector<record::IrqRate> irqs;
  for (int i = 0; i < 30; ++i) {
    record::IrqRate r;
    r.irq = std::to_string(40 + i);
    r.name = "eth0-TxRx-" + std::to_string(i);
    r.chip = "PCI-MSIX-0000:03:00.0";
    r.nic = true;
    r.nic_queue = "TxRx-" + std::to_string(i);
    r.per_cpu.assign(kCpus, 1234);
    r.total = 1234 * kCpus;
    r.per_second = r.total / (end - start);
    irqs.push_back(r);
  }
  s.irqs = irqs;
  s.net_rx_softirqs = std::vector<uint64_t>(kCpus, 56789);
  s.net_tx_softirqs = std::vector<uint64_t>(kCpus, 1234);
  std::vector<record::SoftnetDelta> softnet;
  for (int c = 0; c < kCpus; ++c) softnet.push_back({c, 98765, 0, 1});
  s.softnet = softnet;
  s.context_switches = uint64_t{123456};
  s.interrupts = uint64_t{654321};
  std::map<std::string, int64_t> counters;
  for (int i = 0; i < 60; ++i) counters["TcpExt.Counter" + std::to_string(i)] = 1000 + i;
  s.net_counters = counters;
  s.process = record::ProcessUsage{0.25, 0.5, 100, 3, 0, 0, {0, 1, 2, 3}, {}};
  s.run_queue = record::RunQueueDelay{0.75, 0.01, 6};
  s.nic_counters = std::map<std::string, int64_t>{{"rx_packets", 80000}, {"rx_dropped", 0}};
  s.host_ip_bytes = uint64_t{12345678901};
  return s;
}

TEST(DayLongRecord, BoundedAtBothEndsAndThroughTheExchange) {
  const MonoTime start{};
  engine::IntervalSampler sampler(start, 0ms, record::Transport::kTcp);
  std::vector<record::HostInterval> samples;  // as HostObserver keeps them
  size_t limit = 0;
  std::vector<engine::FlowCounters> counters(kStreams);
  for (int i = 0; i < kStreams; ++i) {
    counters[i].id = i == 0 ? 1 : i + 2;
    counters[i].sender = true;
  }
  // Every second's sample has the same content (its rates are per 1 s), built once. The first
  // sample is that whole sample, since the limit is judged by its size; the others carry only
  // their times through the loop and take the content back before the exchange: the merge
  // policy keeps samples by their times alone, and copying and merging the whole content
  // 86,400 times took 150 s of the sanitizer build's time.
  const record::HostInterval one_second = BigSample(0, 1);
  const record::HostInterval times_only;
  engine::TcpInfoByFlow infos;
  for (const auto& c : counters) infos[c.id] = record::TcpInfoSample{200, 20, 100, 1448};
  for (int second = 1; second <= kSeconds; ++second) {
    for (auto& c : counters) c.bytes += 117500000;  // 940 Mbit/s per stream
    const record::IntervalRecord* closed =
        sampler.Close(start + std::chrono::seconds(second), counters, infos);
    ASSERT_NE(closed, nullptr);
    if (limit > 0 && samples.size() >= limit) record::HalveFrom(samples, 0, record::MergeSamples);
    samples.push_back(limit == 0 ? one_second : times_only);
    samples.back().start = closed->start;
    samples.back().end = closed->end;
    if (limit == 0) {
      limit = engine::KeepLimitFor(*closed, &samples.back());
      sampler.SetKeepLimit(limit);
    }
  }
  const std::vector<record::IntervalRecord>& kept = sampler.intervals();
  ASSERT_LE(kept.size(), limit);
  ASSERT_EQ(kept.size(), samples.size()) << "intervals and samples must stay aligned";
  EXPECT_DOUBLE_EQ(kept.front().start, 0);
  EXPECT_DOUBLE_EQ(kept.back().end, kSeconds);
  uint64_t bytes = 0;
  for (const auto& iv : kept) bytes += iv.streams[0].bytes;
  EXPECT_EQ(bytes, 117500000ull * kSeconds) << "merging must keep every byte";
  for (size_t i = 0; i < kept.size(); ++i) {
    EXPECT_DOUBLE_EQ(kept[i].start, samples[i].start);
    EXPECT_DOUBLE_EQ(kept[i].end, samples[i].end);
  }

  for (record::HostInterval& s : samples) {
    const double sample_start = s.start, sample_end = s.end;
    s = one_second;
    s.start = sample_start;
    s.end = sample_end;
  }

  record::EndpointRecord server;
  server.role = record::Role::kServer;
  server.software = "nicbench test";
  server.intervals = kept;
  server.samples = samples;
  protocol::PeerResults results;
  results.sender_has_retransmits = 1;
  for (const auto& c : counters) {
    results.streams.push_back({c.id, c.bytes, 0, 0, 0, 0, 0, 1.0 * kSeconds});
  }
  results.extension = nlohmann::json(server);

  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  std::thread writer(
      [&] { EXPECT_TRUE(protocol::SendJson(fds[0], protocol::EncodeResults(results), 60s)); });
  auto doc = protocol::ReadJson(fds[1], 60s, protocol::kMaxResultsBytes, "server results");
  writer.join();
  close(fds[0]);
  close(fds[1]);
  ASSERT_TRUE(doc) << doc.error().ToString();
  auto decoded = protocol::DecodeResultsJson(*doc);
  ASSERT_TRUE(decoded) << decoded.error().ToString();
  ASSERT_TRUE(decoded->extension.has_value());
  auto remote = record::EndpointFromJson(*decoded->extension);
  ASSERT_TRUE(remote) << remote.error().ToString();
  EXPECT_EQ(remote->intervals.size(), kept.size());
  EXPECT_EQ(remote->samples.size(), samples.size());
  EXPECT_DOUBLE_EQ(remote->samples.back().end, kSeconds);
}

}  // namespace
}  // namespace nicbench::regress
