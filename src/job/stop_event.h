// An eventfd that says "stop now" to the tests and probes a job runs on other threads (their
// ClientConfig::stop_fd). Internal to the job layer; Now() may be called from any thread.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace nicbench::job {

struct StopEvent {
  int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  StopEvent() = default;
  StopEvent(const StopEvent&) = delete;
  StopEvent& operator=(const StopEvent&) = delete;
  ~StopEvent() {
    if (fd >= 0) ::close(fd);
  }
  void Now() const {
    const uint64_t one = 1;
    if (fd >= 0 && ::write(fd, &one, sizeof one) < 0) {
      // Cannot fail on an eventfd written once; the tests end at their own duration anyway.
    }
  }
};

}  // namespace nicbench::job
