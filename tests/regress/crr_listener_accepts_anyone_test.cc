// The per-flow CRR listener accepted anyone: three idle connections to it from another address
// dropped a `-P 1` CRR test to no transactions while it reported success and no warning, and
// with `-P 4` thousands of foreign connections were counted as the server's transactions. Now
// the listener closes, uncounted, every connection that does not come from the test's client,
// and the server logs how many it refused.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>

#include "regress/hostile_client.h"

namespace nicbench::regress {
namespace {

// The TCP ports that process `pid` listens on, from `ss -ltnpH` (netlink with a state filter:
// /proc/net/tcp lists every TIME_WAIT socket of the host, hundreds of thousands after CRR tests,
// and took seconds to read).
std::set<int> ListeningPorts(pid_t pid) {
  std::set<int> ports;
  FILE* ss = popen("ss -ltnpH 2>/dev/null", "r");
  if (ss == nullptr) return ports;
  const std::string owner = "pid=" + std::to_string(pid) + ",";
  char line[1024];
  while (std::fgets(line, sizeof line, ss) != nullptr) {
    const std::string text(line);
    if (text.find(owner) == std::string::npos) continue;
    // State Recv-Q Send-Q Local:Port Peer:Port Process
    std::istringstream fields(text);
    std::string state, recvq, sendq, local;
    fields >> state >> recvq >> sendq >> local;
    const size_t colon = local.rfind(':');
    if (colon != std::string::npos) ports.insert(std::atoi(local.c_str() + colon + 1));
  }
  pclose(ss);
  return ports;
}

// Transactions the client counted in its intervals from `from` seconds on.
uint64_t TransactionsAfter(const nlohmann::json& doc, double from) {
  uint64_t n = 0;
  for (const auto& interval : doc["intervals"]) {
    if (interval["sum"]["start"].get<double>() >= from) {
      n += interval["rr"]["transactions"].get<uint64_t>();
    }
  }
  return n;
}

TEST(CrrListenerAcceptsAnyone, ForeignConnectionsNeitherHoldNorCountAndAreLogged) {
  ServeChild server = StartServe();
  const pid_t pid = server.process->pid();
  const std::set<int> before = ListeningPorts(pid);

  // The attacker (127.0.0.2) finds the flow's listener as soon as it appears, holds three idle
  // connections to it, and keeps making complete transactions of its own meanwhile.
  std::atomic<bool> done{false};
  std::atomic<int> found_port{0};
  std::atomic<uint64_t> foreign_answered{0};
  std::thread attacker([&] {
    while (!done && found_port == 0) {
      for (int port : ListeningPorts(pid)) {
        if (before.count(port) == 0) found_port = port;
      }
      if (found_port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::vector<int> idle;
    for (int i = 0; i < 3 && found_port != 0; ++i) {
      const int fd = ConnectFrom("127.0.0.2", found_port);
      if (fd >= 0) idle.push_back(fd);
    }
    while (!done && found_port != 0) {
      const int fd = ConnectFrom("127.0.0.2", found_port);
      if (fd < 0) break;
      const char request = 'x';
      char response[256];
      if (SendAll(fd, &request, 1) && recv(fd, response, sizeof response, 0) > 0) {
        ++foreign_answered;
      }
      close(fd);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // gentle on a shared machine
    }
    CloseAll(idle);
  });
  testing::ProcessResult r =
      testing::RunProcess({testing::NicbenchPath(), "run", "127.0.0.1", "-p",
                           std::to_string(server.port), "--crr", "-t", "3", "-i", "0.5", "-J"},
                          "", std::chrono::seconds(60));
  done = true;
  attacker.join();
  ASSERT_NE(found_port.load(), 0) << "the CRR listener was never seen";
  const size_t error_at = r.out.find("\"error\"");
  ASSERT_EQ(r.exit_code, 0) << r.err
                            << (error_at == std::string::npos ? r.out.substr(0, 2000)
                                                              : r.out.substr(error_at, 400));
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;

  const uint64_t late = TransactionsAfter(doc, 2.0);
  const uint64_t client = doc["end"]["rr"]["local"]["transactions"].get<uint64_t>();
  const auto& peer = doc["end"]["rr"]["peer_transactions"];
  std::printf(
      "client %llu transactions (%llu in the last second), server %s, foreign answered %llu\n",
      static_cast<unsigned long long>(client), static_cast<unsigned long long>(late),
      peer.dump().c_str(), static_cast<unsigned long long>(foreign_answered.load()));
  EXPECT_GT(late, 0u) << "idle foreign connections held the listener";
  EXPECT_EQ(foreign_answered.load(), 0u) << "the listener answered a foreign address";
  ASSERT_TRUE(peer.is_number()) << doc["end"]["rr"].dump();
  // The server counts only its client's transactions (the ends' windows differ by a few).
  EXPECT_LE(peer.get<uint64_t>(), client + client / 20 + 1);

  testing::ProcessResult stopped = server.process->Stop();
  EXPECT_NE(stopped.err.find("from addresses other than the test's client"), std::string::npos)
      << stopped.err.substr(0, 2000);
}

}  // namespace
}  // namespace nicbench::regress
