#include "engine/measure/loop_waiter.h"

#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <optional>
#include <utility>

namespace nicbench::engine {

Result<std::unique_ptr<EpollWaiter>> EpollWaiter::Create(int control_fd, int done_fd, int stop_fd) {
  std::unique_ptr<EpollWaiter> waiter(new EpollWaiter());
  EpollWaiter& loop = *waiter;
  loop.epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (loop.epoll_fd_ < 0) return FailErrno("epoll_create1");
  loop.timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
  if (loop.timer_fd_ < 0) return FailErrno("timerfd_create");
  loop.done_fd_ = done_fd;
  const std::pair<int, uint32_t> fds[] = {{control_fd, static_cast<uint32_t>(Wake::kControl)},
                                          {done_fd, static_cast<uint32_t>(Wake::kDone)},
                                          {stop_fd, static_cast<uint32_t>(Wake::kStop)},
                                          {loop.timer_fd_, static_cast<uint32_t>(Wake::kTimer)}};
  for (const auto& [fd, tag] : fds) {
    if (fd < 0) continue;
    epoll_event ev{};
    ev.events = EPOLLIN | (fd == control_fd ? static_cast<uint32_t>(EPOLLRDHUP) : 0u);
    ev.data.u32 = tag;
    if (epoll_ctl(loop.epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) return FailErrno("epoll_ctl");
  }
  return waiter;
}

EpollWaiter::~EpollWaiter() {
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (timer_fd_ >= 0) close(timer_fd_);
}

Result<LoopWaiter::Wake> EpollWaiter::Wait(MonoTime until) {
  // steady_clock is CLOCK_MONOTONIC on Linux, so its time points arm the timerfd directly.
  const auto since_epoch = until.time_since_epoch();
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
  itimerspec spec{};
  spec.it_value.tv_sec = std::max<int64_t>(0, secs.count());
  spec.it_value.tv_nsec =
      std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch - secs).count();
  if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  if (timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr) != 0) {
    return FailErrno("timerfd_settime");
  }
  for (;;) {
    epoll_event events[4];
    int n = epoll_wait(epoll_fd_, events, 4, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return FailErrno("epoll_wait");
    }
    std::optional<Wake> timer;
    std::optional<Wake> event;
    for (int i = 0; i < n; ++i) {
      auto wake = static_cast<Wake>(events[i].data.u32);
      if (wake == Wake::kTimer) {
        uint64_t expirations = 0;
        (void)!read(timer_fd_, &expirations, sizeof expirations);
        timer = wake;
      } else if (!event || wake == Wake::kStop) {
        event = wake;
      }
    }
    if (event == Wake::kDone) {
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, done_fd_, nullptr);
    }
    if (event) return *event;
    if (timer) return *timer;
  }
}

}  // namespace nicbench::engine
