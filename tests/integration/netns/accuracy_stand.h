// Shared pieces of the accuracy scenarios (issue 5): run the real nicbench binary (and stock
// iperf3) inside the hosts of a test stand, read its JSON, and the theoretical figures the
// scenarios assert against. docs/accuracy.md explains every formula and tolerance.
// Not thread-safe: each test uses it from its own thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/result.h"
#include "stand/stand.h"
#include "support/run_binary.h"

namespace nicbench::accuracy {

#define ACCURACY_SKIP_UNLESS_ROOT()                                                        \
  if (!::nicbench::stand::HaveNetnsPrivileges())                                           \
  GTEST_SKIP() << "accuracy scenarios need root (CAP_NET_ADMIN/CAP_SYS_ADMIN) to build a " \
                  "test stand of network namespaces; run ctest -L netns as root"

// Bytes a TCP/IPv4 segment carries in headers with Linux's default timestamps option:
// IPv4 20 + TCP 20 + 12 (diagnosis/link.h's kTcp4HeaderBytes). UDP/IPv4: 20 + 8.
inline constexpr uint32_t kTcpIpHeaderBytes = 52;
inline constexpr uint32_t kUdpIpHeaderBytes = 28;

// The stand's shaping as the kernel has it on one host's egress (read back with tc).
struct Shaping {
  uint64_t rate_bits_per_second = 0;
  uint32_t overhead_bytes = 0;  // tc's per-packet overhead
  uint32_t mtu = 0;
};

// Brings up stand `name` (2 hosts, `profile`, optional offload toggles). The stand is taken
// down when the ScopedStand goes out of scope, also when the test fails.
Result<stand::ScopedStand> UpStand(const std::string& name, stand::Profile profile,
                                   stand::Offloads offloads = {});
// The same for a whole spec (hosts, queue limit, bottleneck); its name gets the prefix too.
Result<stand::ScopedStand> UpStand(stand::StandSpec spec);

// The shaping on `host`'s egress, read with `tc` (and the MTU from the stand's spec).
Shaping ReadShaping(const stand::ScopedStand& stand, int host);

// TCP goodput of one flow through a tbf that splits GSO packets into frames (the bucket is
// smaller than a GSO packet): every MSS-sized segment is charged MTU + 14 + overhead bytes.
// Uses the diagnosis layer's formula (diagnosis::GoodputBitsPerSecond).
double TcpGoodputPerFrame(const Shaping& shaping);
// The same when tbf passes GSO packets whole (bucket >= 64 KiB): the headers of every segment
// are charged (qdisc_pkt_len_init) but the overhead once per packet of `segments` segments.
double TcpGoodputPerGsoPacket(const Shaping& shaping, uint32_t segments);
// UDP datagrams of `payload` bytes: the share of an offered payload rate that fits through the
// bucket, 1 when all of it does.
double UdpDeliveredFraction(const Shaping& shaping, uint32_t payload,
                            double offered_bits_per_second);

// argv run inside `host`'s namespace (`ip netns exec NS argv...`; ip execs the command, so a
// background process's pid is the command's own).
std::vector<std::string> InHost(const stand::HostInfo& host, std::vector<std::string> argv);
// The same with the nicbench binary under test as argv[0].
std::vector<std::string> NicbenchIn(const stand::HostInfo& host, std::vector<std::string> args);

// The measuring processes run at nice -10: the scenarios measure the link, and on a machine
// shared with builds an unprioritised sender or receiver loses the CPU for whole milliseconds.
std::vector<std::string> Prioritized(std::vector<std::string> argv);

// One `nicbench run` against `nicbench serve -1` across the stand: the server in host
// `server_host`, the client in `client_host` with `run_args` (--json is added). `doc` is the
// client's document, `server_doc` the server's own (serve -J) document.
struct PairRun {
  testing::ProcessResult client, server;
  nlohmann::json doc, server_doc;
};
PairRun RunNicbenchPair(const stand::ScopedStand& stand, int server_host, int client_host,
                        std::vector<std::string> run_args);

// Classic ttcp across the stand: receiver (ttcp -r -s) in `receiver_host`, transmitter
// (ttcp -t -s -n buffers) in `transmitter_host`. Returns the receiver's goodput from its
// "N bytes in S real seconds" line, or NaN (with a test failure) when it is missing.
struct TtcpRun {
  testing::ProcessResult transmitter, receiver;
  uint64_t bytes = 0;
  double seconds = 0;
  double bits_per_second = 0;
};
TtcpRun RunTtcpPair(const stand::ScopedStand& stand, int receiver_host, int transmitter_host,
                    int buffers);

// Waits until something in `host` listens on TCP `port` (polls `ss`); false after `limit`, a
// safety net as generous as testing::WaitUntil's (a sanitizer build on a busy host starts slowly).
bool WaitForListener(const stand::HostInfo& host, int port,
                     std::chrono::seconds limit = std::chrono::seconds(60));

// Runs argv to completion (a safety limit of 180 s against a hung peer).
testing::ProcessResult Run(const std::vector<std::string>& argv);

// Parses stdout as one JSON document; fails the test (and returns null) when it is not.
// Runs an accuracy scenario may make before it judges: a loaded host's starvation only lowers a
// rate or raises a loss, so the best of a few runs is the link's.
inline constexpr int kAttempts = 3;

nlohmann::json ParseJson(const testing::ProcessResult& result);

// The finding `id` of a run's JSON document, or nullptr.
inline const nlohmann::json* FindingOf(const nlohmann::json& doc, const std::string& id) {
  if (!doc.is_object() || !doc.contains("findings")) return nullptr;
  for (const auto& f : doc["findings"]) {
    if (f.value("id", "") == id) return &f;
  }
  return nullptr;
}

// A number at a JSON pointer ("/end/sum_received/bytes"), or NaN when absent or not a number.
double NumberAt(const nlohmann::json& doc, const std::string& pointer);

// "12.34 Mbit/s" for messages.
std::string Mbps(double bits_per_second);

// Relative difference |a - b| / b.
double RelativeError(double measured, double expected);

}  // namespace nicbench::accuracy
