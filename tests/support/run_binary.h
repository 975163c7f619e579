// Test support: run the real nicbench binary (or a stock peer such as iperf3) as a child
// process and collect its exit code and output. Used by the cli, loopback and netns tiers.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

namespace nicbench::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // the signal that ended it, or 0
  std::string out;     // everything written to stdout
  std::string err;     // everything written to stderr
};

// The nicbench binary under test (built alongside the tests).
std::string NicbenchPath();
// The tree's test data (tests/testdata) and the source tree itself. The paths are compiled into
// one support file only, so the other test objects do not depend on where the tree lies.
std::string TestdataDir();
std::string SourceDir();

// The result store every child started below writes to: NICBENCH_STORE is set to it in each
// child (overriding the caller's), a file in a temporary directory of this test program that is
// removed when it exits. Tests that read stored runs back use it or pass --store.
std::string TestStorePath();

// Runs argv[0] (searched in PATH when it has no slash) with optional stdin text, waits for it
// to end. A child still running after `limit` is killed with SIGKILL (a safety net against a
// hung test, not a timing assertion).
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& stdin_text = "",
                         std::chrono::seconds limit = std::chrono::seconds(120));

// Shorthand: RunProcess({NicbenchPath(), args...}).
ProcessResult RunNicbench(const std::vector<std::string>& args, const std::string& stdin_text = "");
// A 1 MB test against 127.0.0.1:port from the local address `source` (any 127/8 address).
ProcessResult RunFrom(int port, const std::string& source);

// A child left running in the background (a server); killed and reaped by the destructor.
class BackgroundProcess {
 public:
  explicit BackgroundProcess(const std::vector<std::string>& argv);
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Sends `sig` (none when 0), waits for the process to end, and returns what it printed. A
  // process still running 60 s later is killed with SIGKILL (a safety net, not a timing
  // assertion: a test that needs an end within some time measures it itself).
  ProcessResult Stop(int sig = 15);
  // Waits for the process to end on its own and returns what it printed; one still running
  // after `limit` is killed with SIGKILL (a safety net against a hang, not a timing assertion).
  ProcessResult Wait(std::chrono::seconds limit = std::chrono::seconds(120));
  // Waits for a line containing `needle` on stdout or stderr; false when the process ended
  // without printing it or `limit` passed (a safety net against a hang, generous by default:
  // a sanitizer build on a busy host starts slowly).
  bool WaitForOutput(const std::string& needle,
                     std::chrono::seconds limit = std::chrono::seconds(60));
  // True once the process has ended (without reaping it).
  bool Exited() const;
  std::string StdoutSoFar() const;
  std::string StderrSoFar() const;

 private:
  pid_t pid_ = -1;
  std::string out_path_;
  std::string err_path_;
  bool stopped_ = false;
  ProcessResult result_;
};

struct ServeChild {
  int port = 0;
  std::unique_ptr<BackgroundProcess> process;
};
// `nicbench serve -p 0 --bind 127.0.0.1 EXTRA...`, started and serving on the port the kernel
// picked (a failure to listen is a test failure, with the server's stderr).
ServeChild StartServe(const std::vector<std::string>& extra = {});
// The port a `nicbench serve -p 0` child says it serves on, once it does; 0 if it does not.
int ServedPort(BackgroundProcess& serve);

// True when the tests run as root (the netns tier needs it).
bool IsRoot();

// True when an executable of this name is on PATH (e.g. "iperf3").
bool HaveProgram(const std::string& name);

// `argv` run under a real-time scheduling class (`chrt -f 1`) when the tests run as root and
// chrt is there, else `argv` unchanged. For a stock iperf3 server that receives a -n or -F
// test: it closes its streams on TEST_END with what it has not read yet, so on a loaded host
// its bytes depend on whether the scheduler ran it between the last data and TEST_END (the
// stock iperf3 client races the same way). Only for servers that receive: a real-time sender
// would starve the rest of its core.
std::vector<std::string> FavouredWhenRoot(std::vector<std::string> argv);

// A port free for TCP and UDP on 127.0.0.1, drawn at random from below the kernel's ephemeral
// range, so no connect() or port-0 bind of another test can take it before the server binds it.
// Still a check then use: only for servers that cannot report their own port.
int FreeTcpPort();

}  // namespace nicbench::testing
