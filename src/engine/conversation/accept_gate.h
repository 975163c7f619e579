// When the acceptor may accept. The descriptor budget: the process limit (RLIMIT_NOFILE, read
// again at every check so a raised or lowered limit counts at once) less the descriptors the
// server holds for itself and a reserve; tests reserve theirs from it (server_budget.h) and each
// connection still sending its cookie takes one. When accept(2) fails anyway (EMFILE, or ENFILE
// for the whole system), the classic reserve-descriptor trick sheds one waiting connection with
// ACCESS_DENIED (instead of leaving it ready in the backlog, which made the loop spin: 7 s of CPU
// and 4 million log lines in 13 s), and accepting pauses for a moment. The condition is logged
// once per interval with a count. See docs/protocol.md ("Budgets").
//
// Thread safety: the acceptor thread only.
#pragma once

#include <chrono>
#include <cstdint>

#include "net/unique_fd.h"

namespace nicbench::engine {

class AcceptGate {
 public:
  using Clock = std::chrono::steady_clock;
  // Descriptors kept free beyond every budget: the acceptor's own short-lived ones, a test's
  // /proc reads, the signalfd of a later stop, stdio and logs.
  static constexpr uint64_t kReserve = 32;
  static constexpr std::chrono::milliseconds kPause{100};
  static constexpr std::chrono::seconds kLogInterval{10};

  // Opens the spare descriptor; `own` = the descriptors the server holds before any test.
  explicit AcceptGate(uint64_t own);

  // The descriptors tests and pending connections may use now.
  uint64_t Budget() const;
  // Accepting is paused until this time (or not, if in the past).
  Clock::time_point resume_at() const { return resume_at_; }
  bool paused(Clock::time_point now) const { return now < resume_at_; }

  // accept(2) failed with EMFILE or ENFILE: shed one waiting connection, pause.
  void OnExhausted(int listen_fd, int err, Clock::time_point now);
  // The budget is spent (every descriptor is a test's or a pending connection's): pause.
  void OnBudgetFull(Clock::time_point now);
  // Called on every loop: once an interval with more occurrences than the first has passed,
  // logs their count.
  void Tick(Clock::time_point now);

 private:
  void Note(const char* what, int err, Clock::time_point now);

  uint64_t own_;
  net::UniqueFd spare_;
  Clock::time_point resume_at_{};
  Clock::time_point window_start_{};
  uint64_t count_ = 0;
  bool logged_in_window_ = false;
  const char* what_ = "";
};

// Descriptors this process has open now (/proc/self/fd).
uint64_t OpenDescriptors();

}  // namespace nicbench::engine
