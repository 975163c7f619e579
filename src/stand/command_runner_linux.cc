#include "stand/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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

// The child side: only async-signal-safe calls between fork and exec. On exec failure the
// errno goes to the parent through `errno_fd` (close-on-exec, so a successful exec sends EOF).
[[noreturn]] void ExecChild(const Argv& argv, char* const* cargv, int out_fd, int err_fd,
                            int errno_fd) {
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
  pid_t pid = fork();
  if (pid < 0) return FailErrno("fork");
  if (pid == 0) ExecChild(argv, cargv.data(), out_write.get(), err_write.get(), errno_write.get());
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
  pid_t pid = fork();
  if (pid < 0) return FailErrno("fork");
  if (pid == 0) ExecChild(argv, cargv.data(), -1, -1, errno_write.get());
  errno_write.Reset();
  int child_errno = ReadExecErrno(errno_read.get());
  int status = WaitChild(pid);
  if (child_errno != 0) return Fail(fmt::format("cannot run {}", argv[0]), child_errno);
  return DecodeWaitStatus(status);
}

}  // namespace nicbench::stand
