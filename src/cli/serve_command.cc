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
#include "cli/option_tables.h"
#include "cli/parse_args.h"
#include "engine/server.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace nicbench::cli {
namespace {

// The serve table, then iperf3's, -F's and authentication's (cli/option_tables.cc).
void AddOptions(CLI::App& app, ServeArgs& a) {
  AddRows(app, a, ServeRows());
  AddIperf3ServeOptions(app, a.drop_in);
  AddFileOptions(app, a.file);
  AddServeAuthOptions(app, a.auth);
}

Result<engine::ServerConfig> MakeConfig(ServeArgs& a) {
  engine::ServerConfig config;
  if (auto s = ApplyRows(a, ServeRows(), config); !s) return tl::unexpected(s.error());
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
