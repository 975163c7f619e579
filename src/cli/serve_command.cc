// `nicbench serve`: argv -> engine::ServerConfig, then the server's accept loop until SIGINT or
// SIGTERM (through a signalfd), --once, or --idle-timeout. --daemon forks and detaches before
// serving; --pidfile records the serving process's pid.
#include <fcntl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "base/log.h"
#include "base/units.h"
#include "cli/auth_options.h"
#include "cli/commands.h"
#include "cli/file_options.h"
#include "cli/iperf3_options.h"
#include "cli/parse_args.h"
#include "engine/server.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace nicbench::cli {
namespace {

struct ServeArgs {
  std::string port = "5201", bind, idle_timeout, max_tests, max_duration, max_rate, max_streams,
              max_rr_flows, max_block, pidfile, threads, max_memory, rcv_timeout, max_per_address,
              max_per_hour;
  // Given or not, it is parsed: an empty value is refused, not taken for the default.
  std::string max_connection_rate = std::to_string(engine::kDefaultMaxConnectionsPerSecond);
  bool once = false, daemon = false, json = false;
  Iperf3ServeArgs drop_in;  // iperf3's options, cli/iperf3_options.h
  FileArgs file;            // -F, --direct (cli/file_options.h)
  ServeAuthArgs auth;       // authentication, --allow/--deny (cli/auth_options.h)
  int cpu = -1;             // -A
};

void AddOptions(CLI::App& app, ServeArgs& a) {
  app.add_option("-p,--port", a.port, "TCP/UDP port to listen on (default 5201)");
  app.add_flag("-1,--once,--one-off", a.once, "exit after one test");
  app.add_flag("-D,--daemon", a.daemon, "fork and detach from the terminal");
  app.add_option("-I,--pidfile", a.pidfile, "write the server's pid to this file");
  app.add_option("-B,--bind", a.bind, "listen on this address only (default: all, IPv4+IPv6)");
  app.add_option("--idle-timeout", a.idle_timeout, "exit after this many seconds without a test");
  app.add_option("--max-tests", a.max_tests, "tests running at once (default 4)");
  app.add_option("--max-duration", a.max_duration, "longest test accepted, seconds (t + omit)");
  app.add_option("--max-rate", a.max_rate, "highest per-stream rate accepted (k/m/g bit/s)");
  app.add_option("--max-streams", a.max_streams,
                 "most parallel streams per direction accepted (1..2048, default 128)");
  app.add_option("--max-rr-flows", a.max_rr_flows,
                 "most request/response flows (-P of --rr/--crr) accepted (1..1024, default "
                 "1024)");
  app.add_option("--max-block", a.max_block, "largest block length accepted (K/M bytes)");
  app.add_option("--threads", a.threads,
                 "worker threads per test (0 = one per stream up to 4 streams, else one per CPU)");
  app.add_option(
      "--rcv-timeout", a.rcv_timeout,
      "end a test whose data stops this long, ms (default 120000, as iperf3; 0 = never)");
  app.add_option("--max-tests-per-client,--max-tests-per-address", a.max_per_address,
                 "tests from one client address at once (default: --max-tests minus 1)");
  app.add_option("--max-tests-per-client-per-hour", a.max_per_hour,
                 "tests one client address may start in any hour (default: no limit)");
  app.add_option("--max-connections-per-second", a.max_connection_rate,
                 "new connections one client address may open a second (1..1000000, default "
                 "1000, with a burst of one whole test set-up); beyond it one already closed or "
                 "sending garbage is closed at once, and a silent one waits in 16 places, not "
                 "1100");
  app.add_option("--max-memory", a.max_memory,
                 "buffers of all tests together (K/M/G bytes, default 256M); more is refused");
  app.add_flag("-J,--json", a.json, "one JSON document per test on stdout");
  AddIperf3ServeOptions(app, a.drop_in);
  AddFileOptions(app, a.file);
  AddServeAuthOptions(app, a.auth);
}

Status FillLimits(const ServeArgs& a, engine::ServerConfig& config) {
  record::SpecLimits& limits = config.limits;
  if (!a.max_duration.empty()) {
    auto s = ParseSeconds(a.max_duration);
    if (!s || *s <= 0 || *s > 86400 * 365) return Fail("--max-duration: expected seconds > 0");
    limits.max_duration = std::chrono::milliseconds(static_cast<int64_t>(*s * 1000));
  }
  if (!a.max_rate.empty()) {
    auto r = ParseBitRate(a.max_rate);
    if (!r || *r == 0) return Fail("--max-rate: expected a rate > 0 such as 100M");
    limits.max_rate_bits_per_second = *r;
  }
  if (!a.max_streams.empty()) {
    auto p = ParseUnsigned(a.max_streams);
    if (!p || *p < 1 || *p > static_cast<uint64_t>(record::kMaxParallelStreams)) {
      return Fail(fmt::format("--max-streams: expected 1..{}", record::kMaxParallelStreams));
    }
    limits.max_parallel = static_cast<int>(*p);
  }
  if (!a.max_rr_flows.empty()) {
    auto p = ParseUnsigned(a.max_rr_flows);
    if (!p || *p < 1 || *p > 1024) return Fail("--max-rr-flows: expected 1..1024");
    limits.max_rr_flows = static_cast<int>(*p);
  }
  if (!a.max_block.empty()) {
    auto b = ParseByteSize(a.max_block);
    if (!b || *b < 1 || *b > (16u << 20)) return Fail("--max-block: expected 1..16M bytes");
    limits.max_block_bytes = static_cast<uint32_t>(*b);
  }
  return Ok();
}

// What one client address may hold and open: tests at once, tests an hour, connections a second.
Status FillPerClientLimits(const ServeArgs& a, engine::ServerConfig& config) {
  if (!a.max_per_address.empty()) {
    auto n = ParseUnsigned(a.max_per_address);
    if (!n || *n < 1 || *n > 1024) return Fail("--max-tests-per-client: expected 1..1024");
    config.max_tests_per_address = static_cast<int>(*n);
  }
  if (!a.max_per_hour.empty()) {
    auto n = ParseUnsigned(a.max_per_hour);
    if (!n || *n < 1 || *n > 1000000) {
      return Fail("--max-tests-per-client-per-hour: expected 1..1000000");
    }
    config.max_tests_per_address_per_hour = static_cast<int>(*n);
  }
  auto rate = ParseUnsigned(a.max_connection_rate);
  if (!rate || *rate < 1 || *rate > 1000000) {
    return Fail(fmt::format("--max-connections-per-second: expected 1..1000000, got '{}'",
                            a.max_connection_rate));
  }
  config.max_connections_per_second = static_cast<int>(*rate);
  return Ok();
}

Result<engine::ServerConfig> MakeConfig(ServeArgs& a) {
  engine::ServerConfig config;
  auto port = ParseUnsigned(a.port);
  if (!port || *port > 65535) return Fail(fmt::format("-p: '{}' is not a port", a.port));
  config.port = static_cast<uint16_t>(*port);
  config.bind_address = a.bind;
  config.once = a.once;
  if (!a.idle_timeout.empty()) {
    auto s = ParseUnsigned(a.idle_timeout);
    if (!s || *s == 0 || *s > uint64_t{86400} * 365)
      return Fail("--idle-timeout: expected seconds > 0");
    config.idle_timeout = std::chrono::seconds(*s);
  }
  if (!a.max_tests.empty()) {
    auto n = ParseUnsigned(a.max_tests);
    if (!n || *n < 1 || *n > 1024) return Fail("--max-tests: expected 1..1024");
    config.max_tests = static_cast<int>(*n);
  }
  if (!a.threads.empty()) {
    auto t = ParseUnsigned(a.threads);
    if (!t || *t > 256) return Fail("--threads: expected 0..256");
    config.threads = static_cast<int>(*t);
  }
  if (!a.rcv_timeout.empty()) {
    auto ms = ParseUnsigned(a.rcv_timeout);
    if (!ms || *ms > 86400000ull) return Fail("--rcv-timeout: expected milliseconds 0..86400000");
    config.receive_timeout = std::chrono::milliseconds(*ms);
  }
  if (!a.max_memory.empty()) {
    auto m = ParseByteSize(a.max_memory);
    if (!m || *m < (1u << 20)) return Fail("--max-memory: expected a size of at least 1M");
    config.memory_budget_bytes = *m;
  }
  if (auto s = FillLimits(a, config); !s) return tl::unexpected(s.error());
  if (auto s = FillPerClientLimits(a, config); !s) return tl::unexpected(s.error());
  if (auto s = ApplyIperf3ServeArgs(a.drop_in, config, &a.cpu); !s)
    return tl::unexpected(s.error());
  // --get-server-output from a client: this server's rendering of the test, JSON in -J mode.
  config.render_output = a.json ? report::RenderJson : report::RenderSummary;
  config.render_output_json = a.json;
  if (a.daemon && a.json) return Fail("--daemon and -J cannot be used together (stdout is closed)");
  if (auto problem = ApplyServeFileArgs(a.file, &config.file)) return Fail(problem->message);
  if (auto s = ApplyServeAuthArgs(a.auth, config); !s) return tl::unexpected(s.error());
  return config;
}

// Detach: fork, the child starts a new session and points stdio at /dev/null (logs are lost
// unless stderr was redirected by the caller). The parent exits only once the child is ready
// (pid file written, `ready` called), so a script that reads the pid file right after
// `serve --daemon` returns finds it; a child that fails before then makes the parent exit 1.
class Detacher {
 public:
  Status Fork() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return FailErrno("pipe");
    pid_t pid = fork();
    if (pid < 0) return FailErrno("fork");
    if (pid > 0) {
      close(fds[1]);
      char ok = 0;
      ssize_t n;
      do {
        n = read(fds[0], &ok, 1);
      } while (n < 0 && errno == EINTR);
      _exit(n == 1 && ok == 1 ? 0 : 1);
    }
    close(fds[0]);
    ready_fd_ = fds[1];
    if (setsid() < 0) return FailErrno("setsid");
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd >= 0) {
      dup2(null_fd, STDIN_FILENO);
      dup2(null_fd, STDOUT_FILENO);
      if (isatty(STDERR_FILENO)) dup2(null_fd, STDERR_FILENO);
      close(null_fd);
    }
    return Ok();
  }
  // Lets the waiting parent exit 0. Without it (the child exits early), the parent reads EOF.
  void Ready() {
    if (ready_fd_ < 0) return;
    const char ok = 1;
    (void)!write(ready_fd_, &ok, 1);
    close(ready_fd_);
    ready_fd_ = -1;
  }

 private:
  int ready_fd_ = -1;
};

Status WritePidFile(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "w");
  if (!file) return FailErrno("cannot write pid file " + path);
  std::fprintf(file, "%d\n", static_cast<int>(getpid()));
  std::fclose(file);
  return Ok();
}

// In -J mode an error is a JSON document with "error" on stdout, as `run -J` prints it, and a
// line on stderr for people either way.
void PrintServeError(bool json, const std::string& message) {
  LogError(message);
  if (!json) return;
  record::RunRecord failed;
  failed.local.role = record::Role::kServer;
  failed.error = message;
  std::fputs(report::RenderJson(failed).c_str(), stdout);
}

int Serve(const ServeArgs& args, const engine::ServerConfig& config) {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &mask, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  int stop_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (stop_fd < 0) {
    LogError("signalfd failed");
    return ToInt(ExitCode::kEnvironment);
  }
  std::mutex out_mutex;
  engine::TestSink sink;
  if (args.json) {
    sink = [&out_mutex](const record::RunRecord& record) {
      std::lock_guard<std::mutex> lock(out_mutex);
      report::WriteJson(record, stdout);
      std::fflush(stdout);
    };
  }
  auto server = engine::Server::Create(config, sink);
  if (!server) {
    PrintServeError(args.json, "cannot listen: " + server.error().ToString());
    close(stop_fd);
    return ToInt(ExitCode::kEnvironment);
  }
  Detacher detacher;
  if (args.daemon) {
    if (auto s = detacher.Fork(); !s) {
      LogError(s.error().ToString());
      return ToInt(ExitCode::kEnvironment);
    }
  }
  if (!args.pidfile.empty()) {
    if (auto s = WritePidFile(args.pidfile); !s) LogWarning(s.error().ToString());
  }
  std::fprintf(stderr, "nicbench: serving on port %u (max %d tests at once%s)\n", (*server)->port(),
               config.max_tests, config.authenticator ? ", authentication required" : "");
  detacher.Ready();
  auto interrupted = (*server)->Run(stop_fd);
  close(stop_fd);
  if (!args.pidfile.empty()) unlink(args.pidfile.c_str());
  if (!interrupted) {
    LogError(interrupted.error().ToString());
    return ToInt(ExitCode::kTestFailed);
  }
  return ToInt(*interrupted ? ExitCode::kInterrupted : ExitCode::kOk);
}

}  // namespace

int RunServeCommand(int argc, char** argv) {
  CLI::App app{"nicbench serve: accept tests from nicbench and iperf3 clients", "serve"};
  ServeArgs args;
  AddOptions(app, args);
  RepeatsTakeTheLast(app);
  if (auto code = ParseArgs(app, argc, argv, [](const std::string& m) { LogError(m); })) {
    return *code;
  }
  if (!args.drop_in.logfile.empty()) {
    if (auto s = RedirectToLogfile(args.drop_in.logfile); !s) {
      LogError("nicbench serve: " + s.error().message);
      return ToInt(ExitCode::kEnvironment);
    }
  }
  auto config = MakeConfig(args);
  if (!config) {
    LogError("nicbench serve: " + config.error().message);
    return ToInt(ExitCode::kUsage);
  }
  if (args.cpu >= 0) {
    if (auto s = PinProcess(args.cpu); !s) {
      LogError("nicbench serve: " + s.error().message);
      return ToInt(ExitCode::kEnvironment);
    }
  }
  return Serve(args, *config);
}

}  // namespace nicbench::cli
