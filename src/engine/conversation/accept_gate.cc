#include "engine/conversation/accept_gate.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace nicbench::engine {
namespace {

uint64_t DescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 1 << 20;
  return limit.rlim_cur;
}

}  // namespace

uint64_t OpenDescriptors() {
  uint64_t n = 0;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(dir)) n += e->d_name[0] != '.' ? 1 : 0;
    closedir(dir);
    if (n > 0) --n;  // the directory's own descriptor
  }
  return n;
}

AcceptGate::AcceptGate(uint64_t own)
    : own_(own + 1), spare_(open("/dev/null", O_RDONLY | O_CLOEXEC)) {}

uint64_t AcceptGate::Budget() const {
  const uint64_t limit = DescriptorLimit();
  return limit > own_ + kReserve ? limit - own_ - kReserve : 0;
}

void AcceptGate::Tick(Clock::time_point now) {
  if (now - window_start_ < kLogInterval) return;
  if (count_ > 1 && logged_in_window_) {
    std::fprintf(stderr, "nicbench: %s: %llu more times in the last %lld s\n", what_,
                 static_cast<unsigned long long>(count_ - 1),
                 static_cast<long long>(kLogInterval.count()));
  }
  window_start_ = now;
  count_ = 0;
  logged_in_window_ = false;
}

void AcceptGate::Note(const char* what, int err, Clock::time_point now) {
  Tick(now);
  ++count_;
  if (logged_in_window_) return;
  // The first occurrence of an interval is logged at once; Tick gives the count of the rest.
  what_ = what;
  std::fprintf(stderr,
               "nicbench: %s%s%s (descriptor limit %llu, budget %llu): accepting paused for "
               "%lld ms; said once per %lld s\n",
               what, err != 0 ? ": " : "", err != 0 ? std::strerror(err) : "",
               static_cast<unsigned long long>(DescriptorLimit()),
               static_cast<unsigned long long>(Budget()), static_cast<long long>(kPause.count()),
               static_cast<long long>(kLogInterval.count()));
  logged_in_window_ = true;
}

void AcceptGate::OnExhausted(int listen_fd, int err, Clock::time_point now) {
  Note("accept", err, now);
  if (spare_) {
    spare_.Reset();
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      const uint8_t denied = 0xFF;  // ACCESS_DENIED: a client sees "the server is busy"
      (void)!send(fd, &denied, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      close(fd);
    }
    spare_.Reset(open("/dev/null", O_RDONLY | O_CLOEXEC));
  }
  resume_at_ = now + kPause;
}

void AcceptGate::OnBudgetFull(Clock::time_point now) {
  Note("descriptor budget spent", 0, now);
  resume_at_ = now + kPause;
}

}  // namespace nicbench::engine
