#include "stand/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "base/check.h"

namespace nicbench::stand {
namespace {

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void Reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

Status MakePipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return FailErrno("pipe2");
  read_end.Reset(fds[0]);
  write_end.Reset(fds[1]);
  return Ok();
}

int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// What a child is started with besides its argv.
struct ChildSetup {
  int out_fd = -1;  // with err_fd: capture stdout/stderr (stdin from /dev/null); -1: inherit
  int err_fd = -1;
  int errno_fd = -1;               // the exec-failure pipe's write end
  pid_t parent = 0;                // getpid() of the parent, taken before fork
  const sigset_t* mask = nullptr;  // the signal mask to exec with; nullptr: as inherited
};

// The child side: only async-signal-safe calls between fork and exec. On exec failure the
// errno goes to the parent through `errno_fd` (close-on-exec, so a successful exec sends EOF).
// The child is killed when the thread that forked it dies, however it dies (SIGKILL too):
// PR_SET_PDEATHSIG survives `ip netns exec`'s own exec of the command (prctl(2): it is cleared
// only by a set-user-ID or file-capability exec). A parent that died before the prctl is seen
// as a changed getppid(), and the child gives up.
[[noreturn]] void ExecChild(const Argv& argv, char* const* cargv, const ChildSetup& setup) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != setup.parent) _exit(127);
  if (setup.mask != nullptr) sigprocmask(SIG_SETMASK, setup.mask, nullptr);
  const int out_fd = setup.out_fd, err_fd = setup.err_fd, errno_fd = setup.errno_fd;
  if (out_fd >= 0) {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
  }
  execvp(argv[0].c_str(), cargv);
  int saved = errno;
  ssize_t ignored = write(errno_fd, &saved, sizeof saved);
  (void)ignored;
  _exit(127);
}

std::vector<char*> CArgv(const Argv& argv) {
  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (const auto& arg : argv) cargv.push_back(const_cast<char*>(arg.c_str()));
  cargv.push_back(nullptr);
  return cargv;
}

// Reads the exec-failure pipe after fork; 0 when exec succeeded.
int ReadExecErrno(int fd) {
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(fd, &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  return n == sizeof child_errno ? child_errno : 0;
}

int WaitChild(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Drains stdout and stderr of the child until both reach EOF or the deadline passes.
bool DrainOutput(int out_fd, int err_fd, CommandOutput& output,
                 std::chrono::steady_clock::time_point deadline) {
  std::array<pollfd, 2> fds = {{{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}}};
  std::array<std::string*, 2> sinks = {&output.out, &output.err};
  int open_count = 2;
  char buffer[4096];
  while (open_count > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    int ready = poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  return true;
}

// Waits for child `pid` with `signals` blocked, passing SIGINT, SIGTERM and SIGHUP on to it, so
// `kill WRAPPER` stops the command too. A signal the kernel raised for the terminal (Ctrl-C,
// hangup: si_code SI_KERNEL) went to the whole foreground process group, the child included,
// and is not sent a second time.
int WaitForwardingSignals(pid_t pid, const sigset_t& signals) {
  for (;;) {
    int status = 0;
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) return status;
    siginfo_t info{};
    int sig = sigwaitinfo(&signals, &info);
    if (sig < 0 || sig == SIGCHLD || info.si_code == SI_KERNEL) continue;
    kill(pid, sig);
  }
}

}  // namespace

std::string JoinArgv(const Argv& argv) {
  std::string text;
  for (const auto& arg : argv) {
    if (!text.empty()) text += ' ';
    text += arg;
  }
  return text;
}

Result<CommandOutput> ProcessRunner::Run(const Argv& argv) {
  NB_CHECK(!argv.empty());
  Fd out_read, out_write, err_read, err_write, errno_read, errno_write;
  for (auto [r, w] : {std::pair{&out_read, &out_write}, std::pair{&err_read, &err_write},
                      std::pair{&errno_read, &errno_write}}) {
    if (auto made = MakePipe(*r, *w); !made) return tl::unexpected(made.error());
  }
  std::vector<char*> cargv = CArgv(argv);
  const ChildSetup setup{out_write.get(), err_write.get(), errno_write.get(), getpid(), nullptr};
  pid_t pid = fork();
  if (pid < 0) return FailErrno("fork");
  if (pid == 0) ExecChild(argv, cargv.data(), setup);
  out_write.Reset();
  err_write.Reset();
  errno_write.Reset();
  if (int child_errno = ReadExecErrno(errno_read.get()); child_errno != 0) {
    WaitChild(pid);
    return Fail(fmt::format("cannot run {}", argv[0]), child_errno);
  }
  CommandOutput output;
  bool finished = DrainOutput(out_read.get(), err_read.get(), output,
                              std::chrono::steady_clock::now() + limit_);
  if (!finished) kill(pid, SIGKILL);
  output.exit_code = DecodeWaitStatus(WaitChild(pid));
  if (!finished) {
    return Fail(fmt::format("'{}' did not finish within {} s and was killed", JoinArgv(argv),
                            limit_.count()));
  }
  return output;
}

Result<int> RunInheritingStdio(const Argv& argv) {
  NB_CHECK(!argv.empty());
  Fd errno_read, errno_write;
  if (auto made = MakePipe(errno_read, errno_write); !made) return tl::unexpected(made.error());
  std::vector<char*> cargv = CArgv(argv);
  // Blocked from before the fork, so a signal that comes before the wait below stays pending
  // for it instead of killing this process and leaving the child behind; the child execs with
  // the mask it would have had.
  sigset_t forwarded, old_mask;
  sigemptyset(&forwarded);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&forwarded, sig);
  if (int e = pthread_sigmask(SIG_BLOCK, &forwarded, &old_mask); e != 0) {
    return Fail("pthread_sigmask", e);
  }
  const ChildSetup setup{-1, -1, errno_write.get(), getpid(), &old_mask};
  pid_t pid = fork();
  if (pid < 0) {
    auto failed = FailErrno("fork");
    pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    return failed;
  }
  if (pid == 0) ExecChild(argv, cargv.data(), setup);
  errno_write.Reset();
  int child_errno = ReadExecErrno(errno_read.get());
  int status = WaitForwardingSignals(pid, forwarded);
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (child_errno != 0) return Fail(fmt::format("cannot run {}", argv[0]), child_errno);
  return DecodeWaitStatus(status);
}

}  // namespace nicbench::stand
