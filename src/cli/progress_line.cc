#include "cli/progress_line.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "base/units.h"

namespace nicbench::cli {

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

std::string ProgressLine::Text(double elapsed, double total, std::optional<double> up,
                               std::optional<double> down) {
  std::string text = total > 0 ? fmt::format("[{:5.1f}/{:.1f} s]", std::min(elapsed, total), total)
                               : fmt::format("[{:5.1f} s]", elapsed);
  if (up) text += " client->server " + FormatBitRate(*up);
  if (down) text += " server->client " + FormatBitRate(*down);
  return text;
}

void ProgressLine::Print(const TextOutput& out, const std::string& text) {
  std::lock_guard lock(mu_);
  EraseLocked();
  out.Print(text);
}

void ProgressLine::Update(const record::IntervalRecord& interval, bool local_is_client) {
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
  std::fputs(("\r\033[K" + Text(elapsed, total_, up_, down_)).c_str(), stdout);
  std::fflush(stdout);
  drawn_ = true;
}

void ProgressLine::EraseLocked() {
  if (!drawn_) return;
  std::fputs("\r\033[K", stdout);
  std::fflush(stdout);
  drawn_ = false;
}

}  // namespace nicbench::cli
