// The client against a hostile server, and a client whose output goes away. A server that kept
// sending live samples held `nicbench run -t 2` for as long as it liked while the client's
// memory grew by 55 MB/s; now every step has a deadline derived from the test's duration and
// what the client keeps from the server is capped (dropped with a warning beyond the cap).
// `nicbench run HOST | head` died by SIGPIPE (exit 141) and SIGHUP killed it likewise; now both
// end the test properly (the server hears CLIENT_TERMINATE) and exit 130.
#include "regress/hostile_client.h"

#include <signal.h>

#include <atomic>
#include <thread>

#include "record/json.h"

namespace nicbench::regress {
namespace {

// A listening socket on 127.0.0.1, port 0; returns the fd and sets `port`.
// Plays a server up to TEST_RUNNING, then sends live samples without end (and drains the
// client's data) until `stop` or the client goes away.
void FloodingServer(int listener, const std::atomic<bool>& stop) {
  int control = accept(listener, nullptr, nullptr);
  char cookie[37];
  recv(control, cookie, sizeof cookie, MSG_WAITALL);
  const char param_exchange = 9;
  SendAll(control, &param_exchange, 1);
  unsigned char len[4];
  recv(control, len, 4, MSG_WAITALL);
  std::string params((len[0] << 24) | (len[1] << 16) | (len[2] << 8) | len[3], '\0');
  recv(control, params.data(), params.size(), MSG_WAITALL);
  const char create_streams = 10;
  SendAll(control, &create_streams, 1);
  int stream = accept(listener, nullptr, nullptr);
  recv(stream, cookie, sizeof cookie, MSG_WAITALL);
  const char running[2] = {1, 2};
  SendAll(control, running, 2);
  const std::string sample = nlohmann::json(record::HostInterval{}).dump();
  std::vector<char> sink(1 << 16);
  for (int k = 0; !stop; ++k) {
    const std::string message =
        nlohmann::json{{"index", k}, {"sample", nlohmann::json::parse(sample)}}.dump();
    const char state = 100;  // NICBENCH_SAMPLE
    if (!SendAll(control, &state, 1) || !SendJsonText(control, message)) break;
    while (recv(stream, sink.data(), sink.size(), MSG_DONTWAIT) > 0) {
    }
  }
  close(stream);
  close(control);
}

TEST(ClientHostileServer, LiveSampleFloodNeitherHoldsNorGrowsTheClient) {
  int port = 0;
  int listener = ListenLoopback(&port);
  std::atomic<bool> stop{false};
  std::thread server([&] { FloodingServer(listener, stop); });
  const auto t0 = std::chrono::steady_clock::now();
  testing::BackgroundProcess client({testing::NicbenchPath(), "run", "127.0.0.1", "-p",
                                     std::to_string(port), "-t", "2", "-i", "0.5"});
  long peak_kb = 0;
  bool ended = false;
  // Watch it until it ends (or a 60 s safety net: the flood itself never ends).
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
    std::ifstream stat("/proc/" + std::to_string(client.pid()) + "/stat");
    std::string line;
    std::getline(stat, line);
    if (line.empty() || line[line.rfind(')') + 2] == 'Z') {
      ended = true;
      break;
    }
    peak_kb = std::max(peak_kb, ReadProcStats(client.pid()).rss_kb);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  testing::ProcessResult r = client.Stop(SIGKILL);
  stop = true;
  server.join();
  close(listener);
  std::printf("run -t 2 against a live-sample flood: ended %s after %.1f s, peak RSS %ld MiB\n",
              ended ? "by itself" : "only when killed", seconds, peak_kb / 1024);
  EXPECT_TRUE(ended) << "the client was still held by the server after 60 s";
  EXPECT_LT(peak_kb, 64 * 1024 + kRssMarginKb);
  EXPECT_NE(r.err.find("dropping the excess"), std::string::npos) << r.err.substr(0, 2000);
}

TEST(ClientHostileServer, ClosedStdoutAndHangupEndTheTestProperly) {
  ServeChild server = StartServe();
  NormalTest(server.port);
  const ProcStats baseline = ReadProcStats(server.process->pid());
  // bash for PIPESTATUS: the client's own exit status, not head's.
  testing::ProcessResult piped =
      testing::RunProcess({"bash", "-c",
                           "\"$0\" run 127.0.0.1 -p \"$1\" -t 20 -i 0.1 | head -n 3 >/dev/null; "
                           "echo \"client exit ${PIPESTATUS[0]}\"",
                           testing::NicbenchPath(), std::to_string(server.port)});
  std::printf("nicbench run | head: %s", piped.out.c_str());
  EXPECT_NE(piped.out.find("client exit 130"), std::string::npos) << piped.out << piped.err;

  testing::BackgroundProcess hung({testing::NicbenchPath(), "run", "127.0.0.1", "-p",
                                   std::to_string(server.port), "-t", "20", "-i", "0.1"});
  ASSERT_TRUE(hung.WaitForOutput("sec"));
  testing::ProcessResult hup = hung.Stop(SIGHUP);
  std::printf("SIGHUP: exit code %d, signal %d\n", hup.exit_code, hup.signal);
  EXPECT_EQ(hup.exit_code, 130);

  ExpectBackToBaseline(server.process->pid(), baseline);
  testing::ProcessResult stopped = server.process->Stop();
  // Both tests ended by the client's word, not by a dead connection.
  EXPECT_EQ(CountLines(stopped.err, "the client has terminated"), 2) << stopped.err;
}

}  // namespace
}  // namespace nicbench::regress
