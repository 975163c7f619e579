// datapath_bench: one TCP stream on 127.0.0.1 through engine::DataPath, side by side with
// iperf3 run the same way, interleaved A B A B ... so both see the same machine load. Prints
// Gbit/s and CPU-seconds per GB (sender + receiver together: one process for nicbench, the
// iperf3 client and server summed from wait4) and the ratios. A tuning aid, not a test.
//
//   datapath_bench [--seconds 5] [--pairs 3] [--block 131072] [--zerocopy] [--skip-rx-copy]
//                  [--window BYTES] [--iperf3 /usr/bin/iperf3] [--no-iperf3]
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/datapath/data_path.h"
#include "net/socket.h"
#include "net/socket_address.h"

namespace {

using nicbench::engine::DataPath;
using nicbench::engine::FlowConfig;
namespace net = nicbench::net;

struct Options {
  int seconds = 5;
  int pairs = 3;
  uint32_t block = 128 * 1024;
  uint32_t window = 0;
  bool zerocopy = false;
  bool skip_rx_copy = false;
  bool run_iperf3 = true;
  std::string iperf3 = "/usr/bin/iperf3";
};

struct Figure {
  double gbits = 0;
  double cpu_seconds_per_gb = 0;
  bool ok = false;
};

double CpuSeconds(const rusage& r) {
  return r.ru_utime.tv_sec + r.ru_utime.tv_usec * 1e-6 + r.ru_stime.tv_sec +
         r.ru_stime.tv_usec * 1e-6;
}

Figure RunNicbench(const Options& o) {
  net::SocketOptions so;
  so.window_bytes = o.window;
  auto listener = net::Listen(*net::SocketAddress::FromNumeric("127.0.0.1", 0), 4, so);
  if (!listener) return {};
  auto client =
      net::Connect(*net::SocketAddress::Local(listener->get()), "", 0, so, std::chrono::seconds(5));
  if (!client) return {};
  auto server = net::Accept(listener->get());
  if (!server) return {};
  auto dp = DataPath::Create(2);
  FlowConfig tx;
  tx.fd = client->Release();
  tx.id = 1;
  tx.sender = true;
  tx.block_bytes = o.block;
  tx.zero_copy =
      o.zerocopy ? nicbench::record::ZeroCopy::kSendfile : nicbench::record::ZeroCopy::kOff;
  FlowConfig rx = tx;
  rx.fd = server->Release();
  rx.id = 2;
  rx.sender = false;
  rx.skip_rx_copy = o.skip_rx_copy;
  if (!dp->AddFlow(tx) || !dp->AddFlow(rx)) return {};
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  const auto t0 = std::chrono::steady_clock::now();
  if (!dp->Start()) return {};
  std::this_thread::sleep_for(std::chrono::seconds(o.seconds));
  const uint64_t bytes = dp->Snapshot()[1].bytes;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  getrusage(RUSAGE_SELF, &after);
  auto status = dp->Join();
  if (!status) std::fprintf(stderr, "join: %s\n", status.error().ToString().c_str());
  Figure f;
  f.gbits = bytes * 8 / elapsed / 1e9;
  f.cpu_seconds_per_gb = (CpuSeconds(after) - CpuSeconds(before)) / (bytes / 1e9);
  f.ok = true;
  return f;
}

pid_t Spawn(const std::vector<std::string>& args, int stdout_fd) {
  pid_t pid = fork();
  if (pid == 0) {
    if (stdout_fd >= 0) dup2(stdout_fd, STDOUT_FILENO);
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

Figure RunIperf3(const Options& o) {
  auto probe = net::Listen(*net::SocketAddress::FromNumeric("127.0.0.1", 0), 1, {});
  const std::string port = std::to_string(net::SocketAddress::Local(probe->get())->port());
  probe->Reset();
  const int devnull = ::open("/dev/null", O_WRONLY);
  pid_t server = Spawn({o.iperf3, "-s", "-1", "-B", "127.0.0.1", "-p", port}, devnull);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int out[2];
  if (pipe(out) != 0) return {};
  std::vector<std::string> args = {o.iperf3,
                                   "-c",
                                   "127.0.0.1",
                                   "-p",
                                   port,
                                   "-t",
                                   std::to_string(o.seconds),
                                   "-l",
                                   std::to_string(o.block),
                                   "-J"};
  if (o.zerocopy) args.emplace_back("-Z");
  if (o.window != 0) args.insert(args.end(), {"-w", std::to_string(o.window)});
  pid_t client = Spawn(args, out[1]);
  close(out[1]);
  std::string json;
  char buf[65536];
  for (ssize_t n; (n = read(out[0], buf, sizeof(buf))) > 0;) json.append(buf, n);
  close(out[0]);
  close(devnull);
  rusage rc{}, rs{};
  int st = 0;
  wait4(client, &st, 0, &rc);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(server, SIGTERM);
  wait4(server, &st, 0, &rs);
  auto doc = nlohmann::json::parse(json, nullptr, false);
  if (doc.is_discarded() || !doc.contains("end")) return {};
  const auto& sum = doc["end"]["sum_received"];
  Figure f;
  f.gbits = sum["bits_per_second"].get<double>() / 1e9;
  f.cpu_seconds_per_gb = (CpuSeconds(rc) + CpuSeconds(rs)) / (sum["bytes"].get<double>() / 1e9);
  f.ok = true;
  return f;
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string("0"); };
    if (a == "--seconds")
      o.seconds = std::stoi(next());
    else if (a == "--pairs")
      o.pairs = std::stoi(next());
    else if (a == "--block")
      o.block = static_cast<uint32_t>(std::stoul(next()));
    else if (a == "--window")
      o.window = static_cast<uint32_t>(std::stoul(next()));
    else if (a == "--zerocopy")
      o.zerocopy = true;
    else if (a == "--skip-rx-copy")
      o.skip_rx_copy = true;
    else if (a == "--iperf3")
      o.iperf3 = next();
    else if (a == "--no-iperf3")
      o.run_iperf3 = false;
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int Main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  std::vector<Figure> a, b;
  for (int i = 0; i < o.pairs; ++i) {
    Figure fa = RunNicbench(o);
    std::printf("A nicbench  %6.2f Gbit/s  %6.3f CPU-s/GB\n", fa.gbits, fa.cpu_seconds_per_gb);
    std::fflush(stdout);
    if (fa.ok) a.push_back(fa);
    if (!o.run_iperf3) continue;
    Figure fb = RunIperf3(o);
    std::printf("B iperf3    %6.2f Gbit/s  %6.3f CPU-s/GB%s\n", fb.gbits, fb.cpu_seconds_per_gb,
                fb.ok ? "" : "  (failed)");
    std::fflush(stdout);
    if (fb.ok) b.push_back(fb);
  }
  auto median = [](std::vector<Figure> v, double Figure::*field) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end(),
              [&](const Figure& x, const Figure& y) { return x.*field < y.*field; });
    return v[v.size() / 2].*field;
  };
  const double ag = median(a, &Figure::gbits), ac = median(a, &Figure::cpu_seconds_per_gb);
  std::printf("median nicbench %.2f Gbit/s %.3f CPU-s/GB\n", ag, ac);
  if (!b.empty()) {
    const double bg = median(b, &Figure::gbits), bc = median(b, &Figure::cpu_seconds_per_gb);
    std::printf("median iperf3   %.2f Gbit/s %.3f CPU-s/GB\n", bg, bc);
    std::printf("ratio nicbench/iperf3: throughput %.2f, CPU per GB %.2f (lower is better)\n",
                ag / bg, ac / bc);
  }
  return 0;
}

int main(int argc, char** argv) {
  // A bad number on the command line (std::stoi) ends here rather than in std::terminate.
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "datapath_bench: %s\n", e.what());
    return 2;
  }
}
