#include "report/progress_line.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "base/units.h"

namespace nicbench::report {

bool StdoutIsTerminal() { return isatty(STDOUT_FILENO) == 1; }

ProgressLine::ProgressLine(double total_seconds, bool enabled)
    : total_(total_seconds), enabled_(enabled) {
  if (enabled_) thread_ = std::thread([this] { Loop(); });
}

ProgressLine::~ProgressLine() {
  if (!enabled_) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    EraseLocked();
  }
  cv_.notify_all();
  thread_.join();
}

namespace {

std::string Elapsed(double elapsed, double total) {
  return total > 0 ? fmt::format("[{:5.1f}/{:.1f} s]", std::min(elapsed, total), total)
                   : fmt::format("[{:5.1f} s]", elapsed);
}

// As the interval lines write latency (report/text_rr.cc).
std::string Us(double us) {
  if (us >= 10000) return fmt::format("{:.1f} ms", us / 1000);
  if (us >= 1000) return fmt::format("{:.2f} ms", us / 1000);
  return fmt::format("{:.1f} us", us);
}

}  // namespace

std::string ProgressLine::RrText(double elapsed, double total, const record::RrStats& rr) {
  std::string text =
      Elapsed(elapsed, total) + fmt::format(" {:.1f} tx/s", record::TransactionsPerSecond(rr));
  if (rr.latency && rr.latency->count > 0) {
    text += "  p50 " + Us(rr.latency->p50_us) + "  p99 " + Us(rr.latency->p99_us);
  }
  if (rr.lost > 0) text += fmt::format("  lost {}", rr.lost);
  return text;
}

std::string ProgressLine::Text(double elapsed, double total, std::optional<double> up,
                               std::optional<double> down) {
  std::string text = Elapsed(elapsed, total);
  if (up) text += " client->server " + FormatBitRate(*up);
  if (down) text += " server->client " + FormatBitRate(*down);
  return text;
}

void ProgressLine::Print(const std::function<void(const std::string&)>& write,
                         const std::string& text) {
  std::lock_guard lock(mu_);
  EraseLocked();
  write(text);
}

void ProgressLine::Update(const record::IntervalRecord& interval, bool local_is_client) {
  if (interval.rr) {
    std::lock_guard lock(mu_);
    rr_ = interval.rr;
    return;
  }
  uint64_t sent = 0, received = 0;
  double seconds = 0;
  bool any_sent = false, any_received = false;
  for (const auto& st : interval.streams) {
    (st.sender ? sent : received) += st.bytes;
    (st.sender ? any_sent : any_received) = true;
    seconds = std::max(seconds, st.end - st.start);
  }
  if (seconds <= 0) return;
  std::lock_guard lock(mu_);
  std::optional<double> mine = any_sent ? std::optional(sent * 8.0 / seconds) : std::nullopt;
  std::optional<double> theirs =
      any_received ? std::optional(received * 8.0 / seconds) : std::nullopt;
  up_ = local_is_client ? mine : theirs;
  down_ = local_is_client ? theirs : mine;
}

void ProgressLine::Loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    DrawLocked();
    cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; });
  }
}

void ProgressLine::DrawLocked() {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string text = rr_ ? RrText(elapsed, total_, *rr_) : Text(elapsed, total_, up_, down_);
  std::fputs(("\r\033[K" + text).c_str(), stdout);
  std::fflush(stdout);
  drawn_ = true;
}

void ProgressLine::EraseLocked() {
  if (!drawn_) return;
  std::fputs("\r\033[K", stdout);
  std::fflush(stdout);
  drawn_ = false;
}

}  // namespace nicbench::report
