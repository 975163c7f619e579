#include "support/run_binary.h"

#include "support/text.h"
#include "support/wait.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <thread>
#include <utility>

namespace nicbench::testing {
namespace {

// How long Stop() lets a signalled process end on its own before SIGKILL: a safety net, as
// generous as WaitUntil's default, since a process that ends sooner returns sooner.
constexpr std::chrono::seconds kStopBound{60};

std::string TempPath(const char* tag) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir ? dir : "/tmp") + "/nicbench-test-" + tag + "-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  int fd = mkstemp(buf.data());
  if (fd >= 0) close(fd);
  return std::string(buf.data());
}

// Every child this test program starts stores its runs in one result store of its own, in a
// temporary directory removed at exit: a test never writes into the user's store (~/.local/share)
// nor shares one with another test program running beside it.
const std::string& TestStoreDir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp ? tmp : "/tmp") + "/nicbench-test-store-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    std::string made = mkdtemp(buf.data()) ? buf.data() : "/nonexistent-nicbench-test-store";
    static const std::string removed_at_exit = made;
    std::atexit([] { std::filesystem::remove_all(removed_at_exit); });
    return made;
  }();
  return dir;
}

// Starts argv with stdin from `in_path` (or /dev/null) and outputs to files; -1 when it cannot
// be started. posix_spawn, not fork: tests start children from several threads at once, and a
// forked child that allocates (argv, setenv) can deadlock on a lock another thread held at the
// fork, which the sanitizers' allocator makes likely (the child hangs before exec).
pid_t Spawn(const std::vector<std::string>& argv, const std::string& in_path,
            const std::string& out_path, const std::string& err_path) {
  const std::string store = "NICBENCH_STORE=" + TestStorePath();
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "NICBENCH_STORE=", 15) != 0) env.push_back(*e);
  }
  env.push_back(const_cast<char*>(store.c_str()));
  env.push_back(nullptr);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.empty() ? "/dev/null" : in_path.c_str(),
                                   O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_TRUNC, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_TRUNC, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

void Decode(int status, ProcessResult* result) {
  if (WIFEXITED(status)) {
    result->exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result->signal = WTERMSIG(status);
  }
}

}  // namespace

std::string NicbenchPath() { return NICBENCH_BINARY; }
std::string TestdataDir() { return NICBENCH_TESTDATA; }
std::string SourceDir() { return NICBENCH_SOURCE_DIR; }

std::string TestStorePath() { return TestStoreDir() + "/results.db"; }

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& stdin_text,
                         std::chrono::seconds limit) {
  std::string in_path;
  if (!stdin_text.empty()) {
    in_path = TempPath("in");
    std::ofstream(in_path, std::ios::binary) << stdin_text;
  }
  std::string out_path = TempPath("out");
  std::string err_path = TempPath("err");
  pid_t pid = Spawn(argv, in_path, out_path, err_path);
  ProcessResult result;
  if (pid < 0) {
    result.exit_code = 127;  // as a shell reports a command it cannot run
    result.err = "cannot start " + argv[0];
    unlink(out_path.c_str());
    unlink(err_path.c_str());
    if (!in_path.empty()) unlink(in_path.c_str());
    return result;
  }
  auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (true) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Decode(status, &result);
  result.out = FileText(out_path);
  result.err = FileText(err_path);
  unlink(out_path.c_str());
  unlink(err_path.c_str());
  if (!in_path.empty()) unlink(in_path.c_str());
  return result;
}

ProcessResult RunNicbench(const std::vector<std::string>& args, const std::string& stdin_text) {
  std::vector<std::string> argv{NicbenchPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, stdin_text);
}

ProcessResult RunFrom(int port, const std::string& source) {
  return RunNicbench({"run", "127.0.0.1", "-p", std::to_string(port), "-B", source, "-n", "1M"});
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv)
    : out_path_(TempPath("bgout")), err_path_(TempPath("bgerr")) {
  pid_ = Spawn(argv, "", out_path_, err_path_);
}

BackgroundProcess::~BackgroundProcess() {
  if (!stopped_) Stop(SIGKILL);
  unlink(out_path_.c_str());
  unlink(err_path_.c_str());
}

ProcessResult BackgroundProcess::Stop(int sig) {
  if (stopped_) return result_;
  stopped_ = true;
  if (pid_ < 0) {  // never started
    result_.exit_code = 127;
    return result_;
  }
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) != pid_) {
    if (sig != 0) kill(pid_, sig);
    // The process ends on its own now (it was told to, or was ending anyway); SIGKILL only
    // after the bound, a safety net against a hang. It was 5 s: a sanitizer build on a busy
    // host could take longer to write its report after SIGINT, and lost it to the SIGKILL.
    if (!WaitUntil([&] { return waitpid(pid_, &status, WNOHANG) == pid_; }, kStopBound,
                   std::chrono::milliseconds(10))) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
  }
  Decode(status, &result_);
  result_.out = FileText(out_path_);
  result_.err = FileText(err_path_);
  return result_;
}

std::string BackgroundProcess::StdoutSoFar() const { return FileText(out_path_); }
std::string BackgroundProcess::StderrSoFar() const { return FileText(err_path_); }

bool BackgroundProcess::Exited() const {
  if (pid_ < 0 || stopped_) return true;
  siginfo_t info{};
  // WNOWAIT: looks without reaping, so Stop() and Wait() still get the status.
  return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid_;
}

bool BackgroundProcess::WaitForOutput(const std::string& needle, std::chrono::seconds limit) {
  auto printed = [&] {
    return StdoutSoFar().find(needle) != std::string::npos ||
           StderrSoFar().find(needle) != std::string::npos;
  };
  // A process that ended will print nothing more: no need to wait out the bound for it.
  WaitUntil([&] { return Exited() || printed(); }, limit, std::chrono::milliseconds(10));
  return printed();
}

ProcessResult BackgroundProcess::Wait(std::chrono::seconds limit) {
  if (stopped_ || pid_ < 0) return Stop(SIGKILL);
  int status = 0;
  if (!WaitUntil([&] { return waitpid(pid_, &status, WNOHANG) == pid_; }, limit)) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  stopped_ = true;
  Decode(status, &result_);
  result_.out = FileText(out_path_);
  result_.err = FileText(err_path_);
  return result_;
}

bool IsRoot() { return geteuid() == 0; }

std::vector<std::string> FavouredWhenRoot(std::vector<std::string> argv) {
  if (!IsRoot() || !HaveProgram("chrt")) return argv;
  argv.insert(argv.begin(), {"chrt", "-f", "1"});
  return argv;
}

bool HaveProgram(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (access((dir + "/" + name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

ServeChild StartServe(const std::vector<std::string>& extra) {
  ServeChild child;
  // Port 0: the server binds a port the kernel picks and names it. A port picked here and
  // bound by the child later could be taken in between by a socket of a test running beside
  // ("bind [::]:56877: Address already in use").
  std::vector<std::string> argv = {NicbenchPath(), "serve", "-p", "0", "--bind", "127.0.0.1"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  child.process = std::make_unique<BackgroundProcess>(argv);
  child.port = ServedPort(*child.process);
  EXPECT_NE(child.port, 0) << child.process->StderrSoFar();
  return child;
}

int ServedPort(BackgroundProcess& serve) {
  if (!serve.WaitForOutput("serving on port")) return 0;
  std::smatch m;
  const std::string err = serve.StderrSoFar();
  if (!std::regex_search(err, m, std::regex("serving on port ([0-9]+)"))) return 0;
  return std::stoi(m[1].str());
}

namespace {

// The ports the kernel hands out to connect() and to bind() with port 0
// (net.ipv4.ip_local_port_range), or Linux's default range when that cannot be read.
std::pair<int, int> EphemeralPorts() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0, high = 0;
  if (in >> low >> high && low > 0 && low <= high) return {low, high};
  return {32768, 60999};
}

bool PortFree(int type, int port) {
  const int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool free = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return free;
}

int KernelPickedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace

int FreeTcpPort() {
  // A port from just below the ephemeral range: a port the kernel picked and we released could
  // be handed to the next connect() of a test running beside before our server binds it (CI saw
  // "Address already in use"); below the range only another FreeTcpPort can pick it, and the
  // random draw over thousands of ports makes that rare. Free for TCP and UDP alike, since UDP
  // tests bind the same number.
  const auto [low, high] = EphemeralPorts();
  const int top = low - 1;
  const int bottom = std::max(1024, low - 12000);
  if (top - bottom < 1000) return KernelPickedPort();
  std::mt19937 draw(static_cast<unsigned>(getpid()) ^ std::random_device{}());
  std::uniform_int_distribution<int> pick(bottom, top);
  for (int tries = 0; tries < 200; ++tries) {
    const int port = pick(draw);
    if (PortFree(SOCK_STREAM, port) && PortFree(SOCK_DGRAM, port)) return port;
  }
  return KernelPickedPort();
}

}  // namespace nicbench::testing
