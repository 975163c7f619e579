// The live progress line of `run` on a terminal: "[ 3.2/10.0 s] client->server 9.41 Gbits/sec"
// (a request/response test: "[ 3.2/10.0 s] 27309.8 tx/s  p50 35.1 us  p99 52.0 us") redrawn in
// place (carriage return, erase line) a few times a second between the interval lines, and erased
// when the test ends, so the scrollback holds only the interval lines and the summary. Only when
// stdout is a terminal and the output is text (never piped, never -J or
// --json-stream; the caller decides). Thread-safe: interval lines go through Print, which erases
// the line first.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "record/run_record.h"

namespace nicbench::report {

class ProgressLine {
 public:
  // total_seconds <= 0: the test ends by bytes or blocks; only the elapsed time is shown.
  // Draws nothing unless `enabled`.
  ProgressLine(double total_seconds, bool enabled);
  ~ProgressLine();  // stops drawing and erases the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Has `write` put out `text` (whole lines; the caller's prefixes and flushing) with the
  // progress line out of the way.
  void Print(const std::function<void(const std::string&)>& write, const std::string& text);
  // The rates to show from now on: each direction's sum over the interval, or a
  // request/response test's transactions/s and latency over it.
  void Update(const record::IntervalRecord& interval, bool local_is_client);

  // The line for `elapsed` seconds (pure; for tests and the drawing thread).
  static std::string Text(double elapsed, double total, std::optional<double> up,
                          std::optional<double> down);
  // A request/response test's line: transactions/s, and p50 and p99 when the interval timed any.
  static std::string RrText(double elapsed, double total, const record::RrStats& rr);

 private:
  void Loop();
  void DrawLocked();
  void EraseLocked();

  const double total_;
  const bool enabled_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false, drawn_ = false;
  std::optional<double> up_, down_;    // bits/s client->server, server->client
  std::optional<record::RrStats> rr_;  // the last interval of a request/response test
  std::thread thread_;
};

// True when stdout is a terminal.
bool StdoutIsTerminal();

}  // namespace nicbench::report
