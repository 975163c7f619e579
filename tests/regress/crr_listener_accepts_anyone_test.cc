// The per-flow CRR listener accepted anyone: three idle connections to it from another address
// dropped a `-P 1` CRR test to no transactions while it reported success and no warning, and
// with `-P 4` thousands of foreign connections were counted as the server's transactions. Now
// the listener closes, uncounted, every connection that does not come from the test's client,
// and the server logs how many it refused.
#include <atomic>
#include <set>
#include <thread>

#include "regress/hostile_client.h"

namespace nicbench::regress {
namespace {

// The ports on 127.0.0.1 that process `pid` listens on (its socket inodes in /proc/PID/fd,
// matched with the LISTEN rows of /proc/net/tcp).
std::set<int> ListeningPorts(pid_t pid) {
  std::set<unsigned long> inodes;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      char target[64] = {};
      unsigned long inode = 0;
      if (readlink((dir + "/" + e->d_name).c_str(), target, sizeof target - 1) > 0 &&
          std::sscanf(target, "socket:[%lu]", &inode) == 1) {
        inodes.insert(inode);
      }
    }
    closedir(d);
  }
  std::set<int> ports;
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  std::getline(tcp, line);  // header
  while (std::getline(tcp, line)) {
    unsigned addr = 0, port = 0, state = 0;
    unsigned long inode = 0;
    char rest[256];
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    if (std::sscanf(line.c_str(), " %*d: %8X:%4X %*8X:%*4X %2X %*s %*s %*s %*u %*u %lu %255s",
                    &addr, &port, &state, &inode, rest) >= 4 &&
        state == 0x0A && inodes.count(inode) != 0) {
      ports.insert(static_cast<int>(port));
    }
  }
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
      if (found_port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
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
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // gentle on a shared machine
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
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out.substr(0, 4000);
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
