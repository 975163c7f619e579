// `nicbench monitor` as a user runs it: bad input refused at start (exit 2 naming the option, 3
// for what the machine refuses, 1 for a peer that is not there or not a test server), the
// seed-2 replay fixtures, and a loopback monitor against a `nicbench serve` child whose
// /metrics is scraped (also by promtool and a real Prometheus when they are installed), whose
// runs are stored with its id, which keeps one monitor per peer and stops cleanly on SIGTERM.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "store/store.h"
#include "support/http.h"
#include "support/run_binary.h"
#include "support/usage_errors.h"
#include "support/wait.h"

namespace nicbench {
namespace {

using testing::BackgroundProcess;
using testing::Body;
using testing::HttpGet;
using testing::MetricsPort;
using testing::ProcessResult;

std::string MonitorTempDir(const std::string& name) {
  std::string dir = std::filesystem::temp_directory_path() /
                    ("nicbench-monitor-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(MonitorCli, BadInputIsRefusedAtStartNamingTheOption) {
  const std::vector<testing::UsageCase> cases = {
      {{"--every", "0"}, "--every 0: expected 1 s"},
      {{"--every", "5x"}, "--every '5x' is not a duration"},
      {{"--every", "8s"}, "--every 8s: shorter than its tests (10 s)"},
      {{"--test", "-t abc"}, "--test '-t abc': -t"},
      {{"--test", "--frobnicate"}, "--test '--frobnicate'"},
      {{"--test", "-n 1M"}, "the monitor's tests are timed"},
      {{"--test", "-t 1 --store /tmp/x.db"}, "--store /tmp/x.db: the monitor stores its own"},
      {{"--test", "-t 1 -J"}, "the monitor writes its own output"},
      {{"--test", "-t 1 --under-load"}, "the monitor runs its own latency probes"},
      {{"--sample-interval", "10ms"}, "--sample-interval 10ms: expected 0.1 s"},
      {{"--probe-window", "0.5s"}, "--probe-window 0.5s"},
      {{"--probe-rate", "0"}, "--probe-rate: expected 1..100, got '0'"},
      {{"--probe-rate", "1000"}, "--probe-rate: expected 1..100, got '1000'"},
      {{"--baseline-tests", "0"}, "--baseline-tests: expected 1..100, got '0'"},
      {{"--saturated-for", "soon"}, "--saturated-for 'soon' is not a duration"},
      {{"--saturated-percent", "20"}, "--saturated-percent 20: expected a number 50..100"},
      {{"--degraded-percent", "100"}, "--degraded-percent 100"},
      {{"--metrics-listen", "127.0.0.1:99999"}, "--metrics-listen 127.0.0.1:99999"},
      {{"--baseline", "nonsense:1"}, "--baseline"},
  };
  // Port 1: nobody listens, and nothing may be tried anyway.
  testing::ExpectUsageErrors({"monitor", "127.0.0.1", "-p", "1"}, cases);
  testing::ExpectUsageErrors({"monitor"}, {{{}, "a PEER is needed"}});
  testing::ExpectUsageErrors({"monitor", "127.0.0.1"},
                             {{{"--replay", "/tmp"}, "--replay judges a recording: no PEER"}});
}

TEST(MonitorCli, UnreachablePeerAndUnwritableEventsFileAtStart) {
  const std::string locks = MonitorTempDir("locks1");
  ProcessResult r =
      testing::RunNicbench({"monitor", "127.0.0.1", "-p", "1", "--no-store", "--lock-dir", locks});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("127.0.0.1 port 1 is unreachable"), std::string::npos) << r.err;
  r = testing::RunNicbench({"monitor", "127.0.0.1", "-p", "1", "--no-store", "--lock-dir", locks,
                            "--events", "/nonexistent-dir/events.ndjson"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("--events /nonexistent-dir/events.ndjson: cannot open"), std::string::npos)
      << r.err;
  r = testing::RunNicbench({"monitor", "127.0.0.1", "-p", "1", "--no-store", "--lock-dir", locks,
                            "--log", "/nonexistent-dir/monitor.log"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("--log /nonexistent-dir/monitor.log: cannot open"), std::string::npos)
      << r.err;
}

TEST(MonitorCli, APeerThatIsNoTestServerIsRefusedAtStart) {
  // A listener that closes every connection at once: not nicbench, not iperf3.
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(listener, 16), 0);
  socklen_t len = sizeof a;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
  std::atomic<bool> done{false};
  std::thread closer([&] {
    while (!done) {
      const int c = ::accept(listener, nullptr, nullptr);
      if (c >= 0) ::close(c);
    }
  });
  ProcessResult r =
      testing::RunNicbench({"monitor", "127.0.0.1", "-p", std::to_string(ntohs(a.sin_port)),
                            "--no-store", "--lock-dir", MonitorTempDir("locks2")});
  done = true;
  ::shutdown(listener, SHUT_RDWR);
  closer.join();
  ::close(listener);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("does not answer as nicbench or iperf3"), std::string::npos) << r.err;
}

TEST(MonitorCli, ReplayOfTheSeed2StormRaisesTheLivelockedInterruptEvent) {
  const std::string dir = testing::TestdataDir() + "/monitor/";
  ProcessResult r =
      testing::RunNicbench({"monitor", "--replay", dir + "seed2-storm", "--saturated-for", "3s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto event = nlohmann::json::parse(r.out);  // exactly one line
  EXPECT_EQ(event["kind"], "core-saturated");
  EXPECT_EQ(event["state"], "opened");
  EXPECT_EQ(event["subject"], "cpu0");
  EXPECT_NE(event["summary"].get<std::string>().find("livelocked"), std::string::npos);
  r = testing::RunNicbench({"monitor", "--replay", dir + "seed2-calm", "--saturated-for", "3s"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  r = testing::RunNicbench({"monitor", "--replay", dir + "nothing-here"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("no series there"), std::string::npos) << r.err;
}

// The goodput series of both directions are in the exposition once each direction's test ran.
bool BothDirectionsScraped(int port) {
  const std::string body = Body(HttpGet(port, "/metrics"));
  return body.find("direction=\"forward\"") != std::string::npos &&
         body.find("direction=\"reverse\"") != std::string::npos &&
         body.find("nicbench_monitor_probe_latency_seconds_count{peer=\"127.0.0.1\"} 0") ==
             std::string::npos &&
         // The nicbench peer's own samples came with the probes.
         body.find("nicbench_monitor_peer_samples_total{peer=\"127.0.0.1\"} 0") ==
             std::string::npos;
}

// A `nicbench serve` child and a monitor of it with short periods, its metrics on a port the
// kernel picks, its runs and events in DIR.
struct LoopbackMonitor {
  testing::ServeChild serve = testing::StartServe();
  std::string dir;
  std::vector<std::string> common;
  std::unique_ptr<BackgroundProcess> process;
  int metrics = 0;

  explicit LoopbackMonitor(const std::string& name, const std::vector<std::string>& extra = {})
      : dir(MonitorTempDir(name)) {
    common = {testing::NicbenchPath(),    "monitor",    "127.0.0.1", "-p",
              std::to_string(serve.port), "--lock-dir", dir};
    std::vector<std::string> argv = common;
    for (const char* a :
         {"--every", "6s", "--test", "-t 1 --both-directions", "--sample-interval", "0.2s",
          "--probe-window", "1s", "--metrics-listen", "127.0.0.1:0", "--id", "loop1"}) {
      argv.push_back(a);
    }
    argv.insert(argv.end(), {"--store", dir + "/runs.db", "--events", dir + "/events.ndjson"});
    for (const std::string& a : extra)
      argv.push_back(a.starts_with("DIR/") ? dir + a.substr(3) : a);
    process = std::make_unique<BackgroundProcess>(argv);
    metrics = MetricsPort(*process);
  }
  ~LoopbackMonitor() {
    process->Stop();
    serve.process->Stop();
    std::filesystem::remove_all(dir);
  }
};

TEST(MonitorLoopback, RealPrometheusScrapesGoodputAndOpenEvents) {
  if (!testing::HaveProgram("prometheus")) {
    GTEST_SKIP() << "prometheus is not installed (scripts/install-deps installs it): the "
                    "real-server scrape is not checked";
  }
  LoopbackMonitor monitor("prom");
  ASSERT_GT(monitor.metrics, 0) << monitor.process->StderrSoFar();
  testing::RealPrometheus prometheus(monitor.dir, {monitor.metrics});
  ASSERT_TRUE(prometheus.Listening()) << prometheus.StderrSoFar();
  for (const char* metric :
       {"nicbench_monitor_goodput_bytes_per_second", "nicbench_monitor_open_events"}) {
    EXPECT_TRUE(testing::WaitUntil([&] {
      return prometheus.Query(metric).find("\"__name__\":\"" + std::string(metric)) !=
             std::string::npos;
    })) << metric
        << ": " << prometheus.Query(metric) << prometheus.StderrSoFar();
  }
}

TEST(MonitorLoopback, ScrapedStoredLockedAndStoppedBySigterm) {
  LoopbackMonitor m("loop");
  BackgroundProcess& monitor = *m.process;
  const std::string& dir = m.dir;
  const std::vector<std::string>& common = m.common;
  const int metrics = m.metrics;
  ASSERT_GT(metrics, 0) << monitor.StderrSoFar();
  EXPECT_NE(HttpGet(metrics, "/-/healthy").find("200 OK"), std::string::npos);
  EXPECT_NE(HttpGet(metrics, "/metrics", "POST").find("405"), std::string::npos);
  EXPECT_NE(HttpGet(metrics, "/elsewhere").find("404"), std::string::npos);
  ASSERT_TRUE(testing::WaitUntil([&] { return BothDirectionsScraped(metrics); }))
      << Body(HttpGet(metrics, "/metrics")) << monitor.StderrSoFar();
  const std::string exposition = Body(HttpGet(metrics, "/metrics"));
  if (testing::HaveProgram("promtool")) {
    ProcessResult check = testing::RunProcess({"promtool", "check", "metrics"}, exposition);
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err << exposition;
  }
  // A second monitor of the same peer is refused; one whose metrics port is taken too.
  std::vector<std::string> second(common.begin() + 1, common.end());
  ProcessResult twice = testing::RunNicbench(second);
  EXPECT_EQ(twice.exit_code, 3) << twice.err;
  EXPECT_NE(twice.err.find("another monitor (pid " + std::to_string(monitor.pid())),
            std::string::npos)
      << twice.err;
  ProcessResult taken =
      testing::RunNicbench({"monitor", "127.0.0.1", "-p", "1", "--no-store", "--lock-dir", dir,
                            "--metrics-listen", "127.0.0.1:" + std::to_string(metrics)});
  EXPECT_EQ(taken.exit_code, 3) << taken.err;
  EXPECT_NE(taken.err.find("cannot listen there"), std::string::npos) << taken.err;
  ProcessResult stopped = monitor.Stop(SIGTERM);
  EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
  // The runs are stored with the monitor's id.
  ProcessResult history = testing::RunNicbench(
      {"history", "--store", dir + "/runs.db", "--label", "monitor=loop1", "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_GE(nlohmann::json::parse(history.out)["runs"].size(), 2u) << history.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/events.ndjson"));
}

std::string FileText(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The peer going away is an event, not an end; SIGHUP reopens the events file (after a
// rotation moved it); what --record wrote replays.
TEST(MonitorLoopback, PeerGoneIsAnEventHangupReopensAndTheRecordingReplays) {
  LoopbackMonitor m("gone", {"--record", "DIR/series"});
  ASSERT_GT(m.metrics, 0) << m.process->StderrSoFar();
  // The first tests ran (their goodput is scraped): the peer was there.
  ASSERT_TRUE(testing::WaitUntil([&] { return BothDirectionsScraped(m.metrics); }))
      << m.process->StderrSoFar();
  m.serve.process->Stop();
  const std::string events = m.dir + "/events.ndjson";
  ASSERT_TRUE(testing::WaitUntil([&] {
    return FileText(events).find("\"peer-unreachable\"") != std::string::npos;
  })) << FileText(events)
      << m.process->StderrSoFar();
  EXPECT_FALSE(m.process->Exited());
  const auto opened = nlohmann::json::parse(FileText(events).substr(FileText(events).rfind('{')));
  EXPECT_EQ(opened["state"], "opened");
  // Refused once the listener is gone; reset when a connection sat in its backlog as it closed.
  const std::string evidence = opened["evidence"][0].get<std::string>();
  EXPECT_TRUE(evidence.find("Connection refused") != std::string::npos ||
              evidence.find("Connection reset by peer") != std::string::npos)
      << opened.dump();
  std::filesystem::rename(events, events + ".1");
  ::kill(m.process->pid(), SIGHUP);
  ASSERT_TRUE(testing::WaitUntil([&] { return std::filesystem::exists(events); }));
  EXPECT_FALSE(m.process->Exited());
  ProcessResult stopped = m.process->Stop(SIGTERM);
  EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
  // The events are rows of the store as well.
  auto store = store::OpenStore(m.dir + "/runs.db", store::OpenMode::kExisting);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  auto rows = (*store)->Events("loop1");
  ASSERT_TRUE(rows.has_value()) << rows.error().message;
  bool unreachable = false;
  for (const record::MonitorEvent& e : *rows) {
    unreachable = unreachable || e.kind == record::EventKind::kPeerUnreachable;
  }
  EXPECT_TRUE(unreachable) << rows->size();
  ProcessResult replay = testing::RunNicbench({"monitor", "--replay", m.dir + "/series"});
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
}

// --baseline SELECTOR: stored runs are the baseline, so the first test is judged already: a
// test held to 50 Mbit/s against unlimited loopback runs is a degradation in each direction.
TEST(MonitorLoopback, StoredBaselineJudgesTheFirstTests) {
  testing::ServeChild serve = testing::StartServe();
  const std::string dir = MonitorTempDir("baseline");
  const std::string db = dir + "/runs.db";
  const std::string port = std::to_string(serve.port);
  for (const char* reverse : {"", "-R"}) {
    std::vector<std::string> run = {"run", "127.0.0.1", "-p",      port, "-t",      "2",
                                    "-i",  "0.25",      "--store", db,   "--label", "base=1"};
    if (*reverse) run.push_back(reverse);
    ProcessResult r = testing::RunNicbench(run);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  BackgroundProcess monitor({testing::NicbenchPath(), "monitor", "127.0.0.1", "-p", port, "--store",
                             db, "--baseline", "label:base=1", "--test",
                             "-t 2 -i 0.25 -b 50M --both-directions", "--every", "1h", "--lock-dir",
                             dir, "--events", dir + "/events.ndjson"});
  ASSERT_TRUE(testing::WaitUntil([&] {
    const std::string text = FileText(dir + "/events.ndjson");
    return text.find("\"subject\":\"forward\"") != std::string::npos &&
           text.find("\"subject\":\"reverse\"") != std::string::npos;
  })) << FileText(dir + "/events.ndjson")
      << monitor.StderrSoFar();
  std::ifstream in(dir + "/events.ndjson");
  for (std::string line; std::getline(in, line);) {
    const auto e = nlohmann::json::parse(line);
    if (e["subject"] != "forward" && e["subject"] != "reverse") continue;  // a busy host's own
    EXPECT_EQ(e["kind"], "degraded") << line;
    EXPECT_NE(e["summary"].get<std::string>().find("against a baseline of"), std::string::npos);
  }
  EXPECT_EQ(monitor.Stop(SIGTERM).exit_code, 0);
  serve.process->Stop();
  std::filesystem::remove_all(dir);
}

// --log FILE: the monitor's own lines (the peer not reached, tried again) go to FILE and not to
// stderr; after a rotation moved FILE, SIGHUP makes a new one, and the lines go on there.
TEST(MonitorLoopback, LogFileTakesItsLinesAndHangupReopensIt) {
  testing::ServeChild serve = testing::StartServe();
  const std::string dir = MonitorTempDir("log");
  const std::string log = dir + "/monitor.log";
  BackgroundProcess monitor({testing::NicbenchPath(),
                             "monitor",
                             "127.0.0.1",
                             "-p",
                             std::to_string(serve.port),
                             "--lock-dir",
                             dir,
                             "--every",
                             "1h",
                             "--test",
                             "-t 1",
                             "--sample-interval",
                             "0.2s",
                             "--probe-window",
                             "1s",
                             "--no-store",
                             "--id",
                             "logged",
                             "--events",
                             dir + "/events.ndjson",
                             "--log",
                             log});
  auto logged = [&](const std::string& path, const std::string& needle) {
    return testing::WaitUntil([&] { return FileText(path).find(needle) != std::string::npos; },
                              std::chrono::seconds(180));
  };
  ASSERT_TRUE(logged(log, "monitor logged: watching 127.0.0.1 port " + std::to_string(serve.port)))
      << FileText(log) << monitor.StderrSoFar();
  serve.process->Stop();
  ASSERT_TRUE(logged(log, "trying again in")) << FileText(log) << monitor.StderrSoFar();
  std::filesystem::rename(log, log + ".1");
  ::kill(monitor.pid(), SIGHUP);
  ASSERT_TRUE(logged(log, "reopened (SIGHUP)")) << FileText(log + ".1");
  // The next try is the new file's, not the moved one's.
  ASSERT_TRUE(logged(log, "trying again in")) << FileText(log) << FileText(log + ".1");
  EXPECT_NE(FileText(log).find("127.0.0.1 port " + std::to_string(serve.port) + " not reached ("),
            std::string::npos)
      << FileText(log);
  EXPECT_FALSE(monitor.Exited());
  ProcessResult stopped = monitor.Stop(SIGTERM);
  EXPECT_EQ(stopped.exit_code, 0) << FileText(log);
  EXPECT_EQ(stopped.err, "");  // every line went to the log
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nicbench
