#include "engine/datapath/worker.h"

#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <limits>
#include <string>

#include "base/check.h"
#include "base/log.h"
#include "engine/datapath/rr_flow.h"

namespace nicbench::engine {
namespace {

constexpr uint64_t kStopTag = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kTimerTag = kStopTag - 1;
constexpr int kMaxEvents = 64;

Status AddToEpoll(int epoll_fd, int fd, uint32_t events, uint64_t tag) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) return FailErrno("epoll_ctl(ADD)");
  return Ok();
}

// sendfile(2) has no MSG_NOSIGNAL: a peer gone mid-sendfile raises SIGPIPE on the sending
// thread. Blocked here, it stays pending and the call returns EPIPE, which the flow handles.
void BlockSigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

// Takes a SIGPIPE left pending on this thread, so it cannot fire later if the mask changes.
void ConsumePendingSigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  const timespec zero{0, 0};
  while (sigtimedwait(&set, nullptr, &zero) == SIGPIPE) {
  }
}

}  // namespace

void RunContext::SenderFinished() {
  if (senders_left_.fetch_sub(1, std::memory_order_acq_rel) == 1 && done_fd_ >= 0) {
    const uint64_t one = 1;
    // An eventfd write of 1 only fails if the counter would overflow; it cannot here.
    [[maybe_unused]] ssize_t n = ::write(done_fd_, &one, sizeof(one));
  }
}

void RunContext::ReportError(Error error) {
  std::lock_guard<std::mutex> lock(error_mu_);
  // Once one stream has failed the others usually fail for the same reason (the peer closed
  // every socket at the end of the test: EPIPE, ECONNRESET), so they are counted into the
  // first error instead of a warning each; a test that had ended counts none of them.
  if (first_error_) {
    ++more_errors_;
    return;
  }
  first_error_ = std::move(error);
  failed_.store(true, std::memory_order_release);
}

std::optional<Error> RunContext::first_error() const {
  std::lock_guard<std::mutex> lock(error_mu_);
  if (!first_error_ || more_errors_ == 0) return first_error_;
  Error error = *first_error_;
  error.message += " (and " + std::to_string(more_errors_) + " more stream" +
                   (more_errors_ == 1 ? "" : "s") + " failed)";
  return error;
}

Worker::~Worker() { NB_CHECK(!thread_.joinable()); }

Status Worker::Add(Flow* flow) {
  NB_CHECK(!thread_.joinable());
  if (auto s = flow->Attach(buffers_); !s) return s;
  slots_.push_back(Slot{flow, 0, true});
  if (flow->paced()) paced_.push_back(slots_.size() - 1);
  return Ok();
}

void Worker::PlanTurns() {
  const size_t takers = static_cast<size_t>(std::count_if(
      slots_.begin(), slots_.end(), [](const Slot& s) { return s.flow->TakesTurns(); }));
  if (takers <= kTurnWindowAbove) return;
  turns_.emplace(kTurnWindowWidth, takers);
  for (Slot& slot : slots_) {
    if (!slot.flow->TakesTurns()) continue;
    slot.takes_turns = true;
    // One wakeup may move the whole turn; the turn, not the wakeup, bounds its share.
    slot.flow->set_wakeup_bytes(kTurnBytes);
  }
}

itimerspec PacingTimerSpec(uint32_t period_us) {
  itimerspec spec{};
  spec.it_interval.tv_sec = period_us / 1'000'000;
  spec.it_interval.tv_nsec = static_cast<long>(period_us % 1'000'000) * 1000;
  // Half of it in nanoseconds, never 0 (which would disarm the timer).
  const uint64_t half_ns = std::max<uint64_t>(uint64_t{period_us} * 500, 1);
  spec.it_value.tv_sec = static_cast<time_t>(half_ns / 1'000'000'000);
  spec.it_value.tv_nsec = static_cast<long>(half_ns % 1'000'000'000);
  return spec;
}

Status Worker::Start() {
  const uint32_t wakeup_bytes = WakeupBytesFor(slots_.size());
  for (Slot& slot : slots_) slot.flow->set_wakeup_bytes(wakeup_bytes);
  PlanTurns();
  epoll_.Reset(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_) return FailErrno("epoll_create1");
  stop_.Reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!stop_) return FailErrno("eventfd");
  if (auto s = AddToEpoll(epoll_.get(), stop_.get(), EPOLLIN, kStopTag); !s) return s;
  if (!paced_.empty()) {
    uint32_t period_us = std::numeric_limits<uint32_t>::max();
    for (size_t i : paced_)
      period_us =
          std::min(period_us, std::max<uint32_t>(slots_[i].flow->config().pacing_timer_us, 1));
    timer_.Reset(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    if (!timer_) return FailErrno("timerfd_create");
    const itimerspec spec = PacingTimerSpec(period_us);
    if (timerfd_settime(timer_.get(), 0, &spec, nullptr) != 0) return FailErrno("timerfd_settime");
    if (auto s = AddToEpoll(epoll_.get(), timer_.get(), EPOLLIN, kTimerTag); !s) return s;
  }
  if (run_->stopping()) Stop();
  try {
    thread_ = std::thread([this] { Run(); });
  } catch (const std::exception& e) {
    return Fail(std::string("worker thread: ") + e.what());
  }
  return Ok();
}

void Worker::Stop() {
  if (!stop_) return;
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(stop_.get(), &one, sizeof(one));
}

void Worker::Join() {
  if (thread_.joinable()) thread_.join();
}

void Worker::Run() noexcept {
  // Outside the loop: the thread's CPU time is its end's (probes/own_threads.h).
  if (probes::OwnThreads* threads = run_->threads()) threads->Enter();
  BlockSigpipe();
  try {
    if (auto s = Loop(); !s) {
      Error e = s.error();
      e.message = "worker " + std::to_string(index_) + ": " + e.message;
      run_->ReportError(std::move(e));
    }
  } catch (const std::exception& e) {
    run_->ReportError(Error{"worker " + std::to_string(index_) + ": " + e.what()});
  } catch (...) {
    run_->ReportError(Error{"worker " + std::to_string(index_) + ": unknown exception"});
  }
  // Whatever ended the loop, its senders count as finished so DoneFd does not wait on them.
  for (Slot& slot : slots_) {
    if (slot.active && slot.flow->sender()) run_->SenderFinished();
    slot.active = false;
  }
  ConsumePendingSigpipe();
  if (probes::OwnThreads* threads = run_->threads()) threads->Leave();
}

Status Worker::Register() {
  const MonoTime start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < slots_.size(); ++i) {
    Flow* flow = slots_[i].flow;
    flow->Begin(start);
    // A sender outside the turn window waits unarmed (EPOLLERR and EPOLLHUP still come).
    const bool waits = slots_[i].takes_turns && !turns_->Enrol(i);
    slots_[i].registered = waits ? 0 : flow->interest();
    if (auto s = AddToEpoll(epoll_.get(), flow->fd(), slots_[i].registered, i); !s) return s;
  }
  return Ok();
}

Status Worker::Loop() {
  if (slots_.size() == 1 && slots_[0].flow->BlocksWhenAlone()) return RunAlone();
  if (auto s = Register(); !s) return s;
  // --rr-spin: the worker polls its epoll set that long before a wait sleeps.
  uint64_t spin_ns = 0;
  for (const Slot& slot : slots_) {
    spin_ns = std::max(spin_ns, SpinNs(slot.flow->config()));
  }
  epoll_event events[kMaxEvents];
  for (;;) {
    int n = 0;
    SpinWait spin(spin_ns);
    while (spin.flags() != 0) {  // polls while the spin lasts
      n = epoll_wait(epoll_.get(), events, kMaxEvents, 0);
      if (n != 0 || !spin.Again()) break;
    }
    if (n == 0) n = epoll_wait(epoll_.get(), events, kMaxEvents, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return FailErrno("epoll_wait");
    }
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = events[i].data.u64;
      if (tag == kStopTag) return Ok();
      if (tag == kTimerTag) {
        if (auto s = OnTimer(); !s) return s;
        continue;
      }
      if (!slots_[tag].active) continue;
      if (auto s = Settle(tag, slots_[tag].flow->OnEvents(events[i].events)); !s) return s;
    }
  }
}

Status Worker::RunAlone() {
  Slot& slot = slots_[0];
  slot.flow->Begin(std::chrono::steady_clock::now());
  const Result<FlowState> outcome = slot.flow->RunBlocking();
  if (!outcome) run_->ReportError(outcome.error());
  // Stopped (kActive): Run counts an unfinished sender as finished, as after the loop.
  if (outcome && *outcome == FlowState::kActive) return Ok();
  slot.active = false;
  if (slot.flow->sender()) run_->SenderFinished();
  return Ok();
}

Status Worker::OnTimer() {
  uint64_t expirations = 0;
  if (::read(timer_.get(), &expirations, sizeof(expirations)) < 0 && errno != EAGAIN) {
    return FailErrno("read(timerfd)");
  }
  const MonoTime now = std::chrono::steady_clock::now();
  for (size_t i : paced_) {
    if (!slots_[i].active) continue;
    if (auto s = Settle(i, slots_[i].flow->OnPacingTick(now)); !s) return s;
  }
  return Ok();
}

Status Worker::Settle(size_t index, const Result<FlowState>& outcome) {
  Slot& slot = slots_[index];
  if (!outcome) {
    run_->ReportError(outcome.error());
    return Retire(index);
  }
  if (*outcome != FlowState::kActive) return Retire(index);
  if (slot.takes_turns) return TakeTurns(index);
  return Arm(index, slot.flow->interest());
}

Status Worker::Arm(size_t index, uint32_t events) {
  Slot& slot = slots_[index];
  if (events == slot.registered) return Ok();
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = index;
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, slot.flow->fd(), &ev) != 0)
    return FailErrno("epoll_ctl(MOD)");
  slot.registered = events;
  return Ok();
}

Status Worker::TakeTurns(size_t index) {
  Slot& slot = slots_[index];
  // A waiting sender woken by EPOLLERR/EPOLLHUP that is still fine stays unarmed.
  if (!turns_->Sending(index)) return Arm(index, 0);
  // A turn is one wakeup: it moved its bytes, or the socket filled first (each wakeup writes
  // until EAGAIN or the turn's bytes, as its wakeup bytes are the turn's).
  // A turn that began in a block left half-sent ends a part of a block short of its quota.
  const uint64_t block = std::max<uint32_t>(slot.flow->config().block_bytes, 1);
  const uint64_t quota = std::max<uint64_t>(kTurnBytes / block, 1) * block;
  const bool socket_full = slot.flow->moved_bytes() - slot.turn_start + block <= quota;
  const std::vector<size_t> admitted = turns_->Pass(index, socket_full);
  if (!turns_->Sending(index)) {
    if (auto s = Arm(index, 0); !s) return s;
  }
  for (size_t next : admitted) {
    if (auto s = BeginTurn(next); !s) return s;
  }
  return Ok();
}

Status Worker::BeginTurn(size_t index) {
  Slot& slot = slots_[index];
  slot.turn_start = slot.flow->moved_bytes();
  return Arm(index, slot.flow->interest());
}

Status Worker::Retire(size_t index) {
  Slot& slot = slots_[index];
  slot.active = false;
  // Out of the set entirely: a finished socket would otherwise keep reporting EPOLLHUP/EPOLLERR
  // (they cannot be masked) and spin the loop.
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, slot.flow->fd(), nullptr) != 0)
    return FailErrno("epoll_ctl(DEL)");
  if (slot.flow->sender()) run_->SenderFinished();
  if (slot.takes_turns) {
    for (size_t next : turns_->Leave(index)) {
      if (auto s = BeginTurn(next); !s) return s;
    }
  }
  return Ok();
}

}  // namespace nicbench::engine
