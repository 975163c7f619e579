// Where `nicbench monitor`'s events and runs go, and the lock that keeps one monitor per peer
// (docs/monitor.md). Internal to the cli layer. Thread safety: each object is used by the
// monitor's main thread only.
#pragma once

#include <cstdio>
#include <string>

#include "base/result.h"
#include "cli/store_options.h"
#include "record/monitor.h"
#include "record/run_record.h"

namespace nicbench::cli {

// The events: NDJSON lines on stdout (or lines for people when stdout is a terminal, unless
// --json), and NDJSON lines appended to --events FILE, which SIGHUP reopens (after logrotate
// moved it).
class EventWriter {
 public:
  EventWriter(bool json_stdout, std::string events_path)
      : json_stdout_(json_stdout), path_(std::move(events_path)) {}
  ~EventWriter();
  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  // Opens --events FILE for appending; an error naming it.
  Status Open();
  // Closes and opens the file again; an error is warned about and the events go on to stdout.
  void Reopen();
  void Write(const record::MonitorEvent& event);

 private:
  bool json_stdout_;
  std::string path_;
  std::FILE* file_ = nullptr;
};

// --log FILE: the monitor's own diagnostic lines (all it writes to stderr: the peer not reached
// and tried again, warnings, the metrics address, the error it ends with) appended to FILE
// instead. The file takes the place of descriptor 2 (dup2), so every thread's and every layer's
// stderr line goes there with no logging global to consult, and a line is never split between
// two files: dup2 swaps the descriptor at once. SIGHUP reopens it (after logrotate moved it).
// What fails before Open (options, the lock) is still on stderr.
class LogFile {
 public:
  explicit LogFile(std::string path) : path_(std::move(path)) {}
  // Opens FILE for appending (creating it) in place of stderr; an error naming --log FILE, and
  // stderr as it was. Nothing to do without --log.
  Status Open();
  // Opens FILE again and says so in it; when it cannot, the lines go on to the file open
  // before (a warning there says why) until the next SIGHUP.
  void Reopen();

 private:
  std::string path_;
};

// One monitor per peer: an exclusive flock on LOCKDIR/monitor-PEER-PORT.lock held while the
// monitor runs, with its pid written in it. An error naming the other monitor's pid when the
// lock is held.
class PeerLock {
 public:
  static Result<PeerLock> Take(const std::string& dir, const std::string& peer, int port);
  PeerLock(PeerLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  PeerLock& operator=(PeerLock&&) = delete;
  ~PeerLock();

 private:
  explicit PeerLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// The default lock directory: $XDG_RUNTIME_DIR/nicbench, else /tmp/nicbench-UID.
std::string DefaultLockDir();

// Stores one run with the plan's labels and monitor=ID (a fresh connection each time, so a
// store that comes back is used again).
Status StoreMonitorRun(const StorePlan& plan, const std::string& monitor_id,
                       const record::RunRecord& run);

// Stores one event line as a row (store::Store::PutEvent), a fresh connection each time.
Status StoreMonitorEvent(const StorePlan& plan, const record::MonitorEvent& event);

}  // namespace nicbench::cli
