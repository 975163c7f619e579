// The probes on the live kernel: the sampler over a short busy loop, facts of "lo", the route
// lookup for loopback peers, the IP bytes of the host's network namespaces.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "probes/collect_facts.h"
#include "probes/host_delta_reader.h"
#include "probes/namespace_bytes.h"

namespace nicbench::probes {
namespace {

double SumOf(const record::CpuShare& s) {
  return s.user + s.nice + s.system + s.idle + s.iowait + s.irq + s.softirq + s.steal;
}

void ExpectSane(const record::CpuShare& s) {
  for (double v : {s.user, s.nice, s.system, s.idle, s.iowait, s.irq, s.softirq, s.steal}) {
    EXPECT_GE(v, 0.0) << "cpu " << s.cpu;
    EXPECT_LE(v, 100.0 + 1e-9) << "cpu " << s.cpu;
  }
  EXPECT_NEAR(SumOf(s), 100.0, 1e-6) << "cpu " << s.cpu;
}

TEST(HostDeltaReaderLiveTest, BusyLoopGivesSaneShares) {
  DirFileSource files("/");
  HostDeltaReader sampler = HostDeltaReader::Create(files, HostDeltaOptions{"lo"});
  sampler.Begin();
  auto start = std::chrono::steady_clock::now();
  volatile uint64_t spin = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(300)) spin = spin + 1;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  record::HostInterval out = sampler.Sample(0.0, seconds);

  ASSERT_TRUE(out.cpu_total.known()) << out.cpu_total.detail();
  ExpectSane(out.cpu_total.value());
  EXPECT_GT(out.cpu_total.value().Busy(), 0.0);  // this process was spinning
  ASSERT_TRUE(out.cpus.known());
  EXPECT_FALSE(out.cpus.value().empty());
  for (const record::CpuShare& cpu : out.cpus.value()) ExpectSane(cpu);
  ASSERT_TRUE(out.irqs.known()) << out.irqs.detail();
  for (const record::IrqRate& rate : out.irqs.value()) {
    EXPECT_GT(rate.total, 0u);
    EXPECT_FALSE(rate.nic);  // loopback has no NIC lines
    EXPECT_GE(rate.per_second, 0.0);
  }
  EXPECT_TRUE(out.context_switches.known());
  EXPECT_TRUE(out.net_rx_softirqs.known());
  EXPECT_TRUE(out.softnet.known());
  ASSERT_TRUE(out.net_counters.known());
  EXPECT_EQ(out.net_counters.value().count("Tcp.RetransSegs"), 1u);
  ASSERT_TRUE(out.process.known());
  EXPECT_GT(out.process.value().user_seconds + out.process.value().system_seconds, 0.0);

  // A second interval right away: still consistent (the previous snapshot moved forward).
  record::HostInterval next = sampler.Sample(seconds, seconds + 0.001);
  if (next.cpu_total.known()) ExpectSane(next.cpu_total.value());
}

TEST(FactsLiveTest, LoopbackHasNoNic) {
  DirFileSource files("/");
  auto nic = CollectNicFacts("lo", files);
  ASSERT_TRUE(nic) << nic.error().ToString();
  EXPECT_TRUE(nic->loopback);
  EXPECT_FALSE(nic->driver.known());
  EXPECT_EQ(nic->driver.why(), record::Missing::kAbsent);
  EXPECT_EQ(nic->driver.detail(), "loopback: no NIC");
  EXPECT_FALSE(nic->speed_mbps.known());
  EXPECT_FALSE(nic->rings.known());
  EXPECT_TRUE(nic->mtu.known());  // an interface fact, not a NIC fact
  EXPECT_GT(nic->mtu.value(), 0u);
  record::HostFacts host = CollectHostFacts(files);
  EXPECT_TRUE(host.hostname.known());
  EXPECT_TRUE(host.kernel.known());
  ASSERT_TRUE(host.cpu_count.known());
  EXPECT_GT(host.cpu_count.value(), 0);
}

TEST(FactsLiveTest, LoopbackPeersRouteThroughLo) {
  EXPECT_EQ(InterfaceForPeer("127.0.0.1").value_or("?"), "lo");
  EXPECT_EQ(InterfaceForPeer("127.3.2.1").value_or("?"), "lo");
  EXPECT_EQ(InterfaceForPeer("::1").value_or("?"), "lo");
  EXPECT_FALSE(InterfaceForPeer("not-an-address"));
  DirFileSource files("/");
  EXPECT_FALSE(CollectNicFacts("nbpr-none0", files));
}

// Every namespace of the host through its processes: this process's own is among them, and
// the bytes it sends to itself over loopback count twice there (out, then in).
TEST(NamespaceBytesLiveTest, LoopbackBytesOfThisNamespaceCount) {
  DirFileSource files("/");
  std::string buffer;
  auto before = ReadNamespaceOctets(files, buffer);
  if (!before && MissingFromErrno(before.error().sys_errno) == record::Missing::kPermissionDenied) {
    GTEST_SKIP() << "not every process's namespace is readable without root: "
                 << before.error().ToString();
  }
  ASSERT_TRUE(before) << before.error().ToString();
  // A namespace is known by the inode of its own netstat entry (namespace_bytes.cc).
  struct stat self {};
  ASSERT_EQ(stat("/proc/self/net/netstat", &self), 0);
  const auto inode = std::optional<uint64_t>(self.st_ino);
  ASSERT_EQ(before->count(*inode), 1u);

  // 64 datagrams of 16,000 bytes to a socket of our own: IP counts each one out and in, whether
  // or not the receive buffer keeps it (ip_rcv counts before UDP queues).
  const int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(rx, 0);
  ASSERT_GE(tx, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(bind(rx, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(getsockname(rx, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::vector<char> datagram(16000, 'x');
  constexpr int kDatagrams = 64;
  for (int i = 0; i < kDatagrams; ++i) {
    ASSERT_EQ(sendto(tx, datagram.data(), datagram.size(), 0, reinterpret_cast<sockaddr*>(&addr),
                     sizeof addr),
              static_cast<ssize_t>(datagram.size()));
  }
  close(tx);
  close(rx);

  auto after = ReadNamespaceOctets(files, buffer);
  ASSERT_TRUE(after) << after.error().ToString();
  ASSERT_EQ(after->count(*inode), 1u);
  const uint64_t sent = kDatagrams * datagram.size();
  EXPECT_GE(after->at(*inode) - before->at(*inode), 2 * sent);
  EXPECT_GE(DiffNamespaceOctets(*before, *after), 2 * sent);
}

}  // namespace
}  // namespace nicbench::probes
