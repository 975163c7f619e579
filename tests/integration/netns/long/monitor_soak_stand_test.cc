// `nicbench monitor` for minutes on a three-host stand (issue 30, "Soak and monitor";
// docs/monitor.md, "What the stand tests show"), one test so the stand is built once:
//  1. clean: a monitor in h1 watching `nicbench serve` in h2 over shaped 1000baseT links, its
//     periodic tests every 40 s and its probes between them, raises no event for five periods;
//  2. a planted softirq storm: h3 floods h1 with 64-byte UDP datagrams for a bounded time from
//     one core while RPS hands every packet h1 receives to another core's backlog: the monitor
//     names that core and NET_RX softirq, explains it by the packets, carries the latency
//     probe's rise, and resolves the event when the flood ends.
// Labelled `long` (tests/CMakeLists.txt): scripts/check runs it in the optimized build only.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/netns/monitor_stand.h"
#include "support/wait.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103  // include/uapi/linux/udp.h, kernel 4.18
#endif

namespace nicbench::accuracy {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

// The clean phase: this many periods of the monitor's tests (both directions each), kEvery
// apart: over three minutes, two periods making the baseline and three judged.
constexpr int kCleanPeriods = 5;
constexpr int kEverySeconds = 40;
// How long h3 floods: longer than --saturated-for (10 s, the default) with room for the
// monitor's one-second samples on either side, and over before the next period's tests.
constexpr int kFloodSeconds = 20;
// The flood's direct link: h1's second interface .1, h3's .2 (below).
constexpr const char* kFloodNet = "198.19.254.";
constexpr int kSinkPort = 9;
// Each send: this many datagrams of kDatagramBytes in one UDP_SEGMENT (GSO) buffer.
constexpr int kSegments = 64, kDatagramBytes = 64;

// The CPUs this process may use, in order.
std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// Every receive queue of `device` in namespace `netns` hands its packets to `cpu`'s backlog
// (RPS, /sys/class/net/DEV/queues/rx-N/rps_cpus); "" or the failure.
std::string SteerReceiveTo(const std::string& netns, const std::string& device, int cpu) {
  const std::string mask = fmt::format("{:x}", 1u << cpu);
  const auto r = Run({"ip", "netns", "exec", netns, "sh", "-c",
                      fmt::format("for q in /sys/class/net/{}/queues/rx-*/rps_cpus; do "
                                  "echo {} > $q || exit 1; done",
                                  device, mask)});
  return r.exit_code == 0 ? "" : device + ": " + r.err;
}

// Enters `netns` (a /run/netns name) on the calling thread only; "" or the failure.
std::string EnterNetns(const std::string& netns) {
  const int fd = ::open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "open /run/netns/" + netns + ": " + std::strerror(errno);
  const int rc = ::setns(fd, CLONE_NEWNET);
  const int err = errno;
  ::close(fd);
  return rc == 0 ? "" : "setns " + netns + ": " + std::strerror(err);
}

sockaddr_in Ipv4(const std::string& address, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, address.c_str(), &a.sin_addr);
  return a;
}

// A UDP socket bound to address:kSinkPort in `netns` that nobody reads: the flood's GSO
// packets are split into datagrams and queued to it (dropped once its buffer is full) by the
// receiving core's NET_RX softirq. -1 with `error` on failure.
int SinkSocket(const std::string& netns, const std::string& address, std::string& error) {
  int fd = -1;
  std::thread([&] {
    if (error = EnterNetns(netns); !error.empty()) return;
    fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    const sockaddr_in a = Ipv4(address, kSinkPort);
    if (fd < 0 || ::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
      error = std::string("sink socket: ") + std::strerror(errno);
    }
  }).join();
  return fd;
}

// The flooder: run on a thread of its own, which it moves into `netns`, pins to `cpu` and sets
// to nice -20 (the builds sharing the machine must not starve it), then sends GSO buffers of
// kSegments small datagrams to address:kSinkPort until `duration` has passed. The sender's
// work is one send per buffer; the receiver's, a split and a socket queueing per datagram: a
// flood one core sends and another cannot keep up with.
struct Flood {
  uint64_t sends = 0;
  std::string error;
};
Flood FloodFor(const std::string& netns, const std::string& address, int cpu, seconds duration) {
  Flood f;
  if (f.error = EnterNetns(netns); !f.error.empty()) return f;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (::sched_setaffinity(0, sizeof set, &set) != 0 ||
      ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), -20) != 0) {
    f.error = std::string("pinning the flooder: ") + std::strerror(errno);
    return f;
  }
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  const int segment = kDatagramBytes;
  const sockaddr_in a = Ipv4(address, kSinkPort);
  // A send buffer far beyond the default: the sender's packets stay charged to it until the
  // receiving core has split them (a veth keeps the owner across namespaces), so with the
  // default the flooder waits for each batch and the two cores take turns instead of the
  // receiving one falling behind.
  const int send_buffer = 64 << 20;
  if (fd < 0 || ::setsockopt(fd, SOL_UDP, UDP_SEGMENT, &segment, sizeof segment) != 0 ||
      ::setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &send_buffer, sizeof send_buffer) != 0 ||
      ::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    f.error = std::string("flooder socket: ") + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return f;
  }
  std::vector<char> buffer(static_cast<size_t>(kSegments * kDatagramBytes), 'x');
  const auto end = Clock::now() + duration;
  while (Clock::now() < end) {
    // A full queue on the way (ENOBUFS) is the flood doing its work: send on.
    if (::send(fd, buffer.data(), buffer.size(), 0) > 0) ++f.sends;
  }
  ::close(fd);
  return f;
}

// A veth pair between h1 and h3 of the stand, unshaped (h1's second NIC), addressed
// kFloodNet.1 in h1 and .2 in h3: "" or the failure. It goes with the stand's namespaces.
std::string DirectLink(const stand::ScopedStand& st) {
  const stand::HostInfo &h1 = st.host(1), &h3 = st.host(3);
  const std::string x1 = st.info().spec.name + "-x1", x3 = st.info().spec.name + "-x3";
  const std::vector<std::vector<std::string>> steps = {
      {"ip", "-n", h1.netns, "link", "add", x1, "type", "veth", "peer", "name", x3, "netns",
       h3.netns},
      {"ip", "-n", h1.netns, "addr", "add", std::string(kFloodNet) + "1/30", "dev", x1},
      {"ip", "-n", h3.netns, "addr", "add", std::string(kFloodNet) + "2/30", "dev", x3},
      {"ip", "-n", h1.netns, "link", "set", x1, "up"},
      {"ip", "-n", h3.netns, "link", "set", x3, "up"}};
  for (const auto& argv : steps) {
    const auto r = Run(argv);
    if (r.exit_code != 0) return fmt::format("{}: {}", fmt::join(argv, " "), r.err);
  }
  return "";
}

// "latency probe: request/response p99 12.34 ms, baseline 0.21 ms" -> {12.34, 0.21}; NaNs when
// the event carries no such line.
std::pair<double, double> ProbeEvidence(const nlohmann::json& event) {
  static const std::regex kLine(R"(latency probe: .* p99 ([0-9.]+) ms, baseline ([0-9.]+) ms)");
  for (const auto& line : event["evidence"]) {
    std::smatch m;
    const std::string text = line.get<std::string>();
    if (std::regex_search(text, m, kLine)) return {std::stod(m[1]), std::stod(m[2])};
  }
  return {std::nan(""), std::nan("")};
}

// The event line of `path` with this kind, state and subject ("cpu0": this host's core; the
// peer's samples, from the same machine here, say "peer cpu0"), or null.
nlohmann::json EventOf(const std::string& path, const std::string& kind, const std::string& state,
                       const std::string& subject) {
  for (nlohmann::json& e : Events(path, kind, state)) {
    if (e["subject"] == subject) return e;
  }
  return nullptr;
}

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

TEST(MonitorSoakStand, CleanForMinutesThenAFloodSaturatesACoreUntilItStops) {
  ACCURACY_SKIP_UNLESS_ROOT();
  const std::vector<int> cpus = AllowedCpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs: one floods, the other receives";
  const int rx_cpu = cpus[0], flood_cpu = cpus[1];
  stand::StandSpec spec;
  spec.name = "monfl";
  spec.hosts = 3;
  spec.profile = stand::Profile::k1000BaseT;
  const auto start = Clock::now();
  auto st = UpStand(spec);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  StandMonitor m(*st, "monfl",
                 {"--every", fmt::format("{}s", kEverySeconds), "--test",
                  "-t 3 -C cubic --both-directions", "--baseline-tests", "2"},
                 /*prioritized=*/true);

  // 1. Clean: the periods' tests stored (the monitor's own schedule makes the minutes), and
  // not one event line.
  ASSERT_TRUE(testing::WaitUntil([&] { return StoredRuns(m.runs(), "monfl") >= 2 * kCleanPeriods; },
                                 seconds(kEverySeconds * kCleanPeriods + 120)))
      << FileText(m.events()) << m.monitor->StderrSoFar();
  std::printf("clean phase: %d periods of tests in %.0f s\n", kCleanPeriods, SecondsSince(start));
  EXPECT_TRUE(AllEvents(m.events()).empty()) << FileText(m.events());

  // 2. The storm. The stand's links are shaped at 1000baseT, which holds 64-byte datagrams to
  // about 1.2 million a second (tbf charges every datagram's headers): h1's softirq handled
  // that in about a quarter of a core here. So h3 floods over a direct, unshaped link of its
  // own to h1, and RPS hands every packet h1 receives, on either link, to rx_cpu's backlog:
  // the flood's receive work runs there while the flooder sends from flood_cpu, and the
  // probes' answers from h2 wait in the same backlog.
  const stand::HostInfo& h1 = st->host(1);
  ASSERT_EQ(DirectLink(*st), "");
  ASSERT_EQ(SteerReceiveTo(h1.netns, st->info().spec.name + "-x1", rx_cpu), "");
  ASSERT_EQ(SteerReceiveTo(h1.netns, h1.interface, rx_cpu), "");
  std::string sink_error;
  const int sink = SinkSocket(h1.netns, std::string(kFloodNet) + "1", sink_error);
  ASSERT_GE(sink, 0) << sink_error;
  const auto flood_start = Clock::now();
  Flood flooded;
  std::thread flooder([&] {
    flooded = FloodFor(st->host(3).netns, std::string(kFloodNet) + "1", flood_cpu,
                       seconds(kFloodSeconds));
  });
  const std::string core = fmt::format("cpu{}", rx_cpu);
  const bool opened_in_time = testing::WaitUntil(
      [&] { return !EventOf(m.events(), "core-saturated", "opened", core).is_null(); },
      seconds(90));
  if (!opened_in_time) {
    flooder.join();
    ::close(sink);
    FAIL() << "no core-saturated event; the flood: " << flooded.sends << " sends " << flooded.error
           << "\n"
           << FileText(m.events());
  }
  std::printf("core-saturated opened %.0f s into the flood\n", SecondsSince(flood_start));
  // Named after rx_cpu, the core RPS gave the flood, not the flooder's.
  const nlohmann::json opened = EventOf(m.events(), "core-saturated", "opened", core);
  const std::string summary = opened["summary"];
  // On an idle core the flood's softirq takes it whole ("saturated by NET_RX softirq (100%)");
  // beside other work it takes a share and drops ("saturated (busy 100%) with its NET_RX
  // softirq (36%) dropping packets").
  EXPECT_NE(summary.find(fmt::format("cpu{} saturated", rx_cpu)), std::string::npos) << summary;
  EXPECT_NE(summary.find("NET_RX softirq"), std::string::npos) << summary;
  EXPECT_NE(opened["evidence"].dump().find("a flood of packets explains the busy core"),
            std::string::npos)
      << opened.dump(2);
  const auto [p99_ms, baseline_ms] = ProbeEvidence(opened);
  EXPECT_GT(p99_ms, baseline_ms) << opened.dump(2);

  // The flood ends by its own duration; the core is given back and the event resolves.
  flooder.join();
  ::close(sink);
  EXPECT_EQ(flooded.error, "");
  std::printf("flood ended after %.0f s: %llu sends of %d datagrams\n", SecondsSince(flood_start),
              static_cast<unsigned long long>(flooded.sends), kSegments);
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return !EventOf(m.events(), "core-saturated", "resolved", core).is_null(); },
      seconds(60)))
      << FileText(m.events());
  std::printf("core-saturated resolved %.0f s after the flood began\n", SecondsSince(flood_start));
  EXPECT_EQ(EventOf(m.events(), "core-saturated", "resolved", core)["id"], opened["id"]);
  EXPECT_FALSE(m.monitor->Exited());
  EXPECT_EQ(m.monitor->Stop(SIGTERM).exit_code, 0);
  std::printf("whole test (stand up to monitor stopped): %.0f s\nevents:\n%s\n",
              SecondsSince(start), FileText(m.events()).c_str());
}

}  // namespace
}  // namespace nicbench::accuracy
