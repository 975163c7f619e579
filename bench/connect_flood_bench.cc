// A connect/close flood from 127.0.0.1 beside real tests from the same address (issue 32, item
// 8), against a `nicbench serve` already listening on 127.0.0.1:PORT. Prints the flood's rate,
// each real test's wall time (a -n 1M test: almost all of it is set-up, 1 MB moves in a
// millisecond on loopback), the tests that failed, and the server's CPU time over the flood.
// bench/connect_flood.sh starts the servers and runs it with and without the limit.
//
//   connect_flood_bench NICBENCH PORT SERVER_PID [FLOOD_THREADS=2] [TESTS=20]
// FLOOD_THREADS 0 runs the tests without a flood (the baseline).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

using Steady = std::chrono::steady_clock;

double Seconds(Steady::time_point since) {
  return std::chrono::duration<double>(Steady::now() - since).count();
}

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// user + system seconds of `pid` from /proc/PID/stat.
double CpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Runs argv to its end with stdout and stderr on /dev/null; true when it exits 0.
bool RunQuietly(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  return rc == 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s NICBENCH PORT SERVER_PID [FLOOD_THREADS] [TESTS]\n", argv[0]);
    return 2;
  }
  const std::string nicbench = argv[1];
  const int port = std::atoi(argv[2]);
  const pid_t server = static_cast<pid_t>(std::atoi(argv[3]));
  const int threads = argc > 4 ? std::atoi(argv[4]) : 2;
  const int tests = argc > 5 ? std::atoi(argv[5]) : 20;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> made{0};
  const double cpu_before = CpuSeconds(server);
  const auto flood_start = Steady::now();
  std::vector<std::thread> flood;
  for (int t = 0; t < threads; ++t) {
    flood.emplace_back([&] {
      while (!stop) {
        const int fd = Connect(port);
        if (fd >= 0) {
          close(fd);
          ++made;
        }
      }
    });
  }
  // The flood well under way (past any bucket) before the first test.
  while (threads > 0 && made < 5000) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::vector<double> times;
  int failed = 0;
  for (int i = 0; i < tests; ++i) {
    const auto start = Steady::now();
    failed += RunQuietly({nicbench, "run", "127.0.0.1", "-p", std::to_string(port), "-J", "-n",
                          "1M", "-P", "4", "--no-store"})
                  ? 0
                  : 1;
    times.push_back(Seconds(start));
  }
  stop = true;
  for (std::thread& t : flood) t.join();
  const double flood_seconds = Seconds(flood_start);
  const double cpu = CpuSeconds(server) - cpu_before;
  std::sort(times.begin(), times.end());
  std::printf(
      "flood %d threads: %llu connections in %.1f s = %.0f a second; server CPU %.2f s (%.1f us "
      "per connection); %d tests, %d failed; test wall time min %.3f median %.3f max %.3f s\n",
      threads, static_cast<unsigned long long>(made.load()), flood_seconds,
      static_cast<double>(made.load()) / flood_seconds, cpu,
      made > 0 ? cpu / static_cast<double>(made.load()) * 1e6 : 0.0, tests, failed, times.front(),
      times[times.size() / 2], times.back());
  return failed == 0 ? 0 : 1;
}
