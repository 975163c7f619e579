// The rate of new connections one client address may open to the server (serve
// --max-connections-per-second): a token bucket per address, refilled at `per_second` and
// holding at most `burst`, so a client's whole set-up (its control connection and every stream
// at once) fits in a full bucket while a connect/close flood runs dry at once. The acceptor
// asks Admit for every new connection; one over the rate gets no pending slot of its own and no
// wait (server.cc says what it still gets). Also keeps the log of the connections closed for
// being over the rate: the first of a flood is said at once with its address, the rest as one
// count per window, so a flood of any size costs a line per window, not a line per connection.
//
// The clock is the Clock seam, so a test drives the buckets and the windows with a FakeClock.
// Thread safety: one thread (the server's acceptor).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "base/clock.h"

namespace nicbench::engine {

class ConnectionRate {
 public:
  struct Limits {
    double per_second = 1000;  // tokens an address gets back per second; > 0
    double burst = 1100;       // the most an address may hold (and starts with); >= 1
    // Addresses tracked at once. An address whose bucket is full again is forgotten when room
    // is needed; beyond this many busy addresses a new one is let through untracked (the other
    // guards, the pending quota and the descriptor budget, still hold), so a spray of source
    // addresses costs bounded memory instead of refusing everyone.
    size_t max_addresses = 16384;
  };
  // The log's window: the count of a flood's closed connections is said once per window.
  static constexpr std::chrono::seconds kLogWindow{10};

  ConnectionRate(const Clock& clock, Limits limits);

  // A new connection from `host` (an address without its port): true when it is within the
  // address's rate, and it then takes its token; false when it is over the rate.
  bool Admit(const std::string& host);

  // A connection from `host` over the rate was closed at once. Returns the line to log now:
  // the first of a flood (with the address), nothing for the rest, which Tick counts.
  std::optional<std::string> NoteClosed(const std::string& host);

  // Call on every loop of the acceptor. Returns the count line of the connections closed since
  // the last line once the window has ended (at once with `flush`, when the server stops);
  // nothing when none was closed. A window that ends with none ends the flood: the next closed
  // connection is said at once again.
  std::optional<std::string> Tick(bool flush = false);

  // When Tick will have a line to give (the end of the window), if one is waiting.
  std::optional<MonoTime> LineDue() const;

  size_t tracked() const { return buckets_.size(); }

 private:
  struct Bucket {
    double tokens = 0;
    MonoTime refilled;
    uint64_t closed = 0;  // in this window, not yet said
  };
  void Refill(Bucket& bucket, MonoTime now) const;
  // Forgets the addresses whose bucket is full and that have nothing left to say; at most once
  // per kPruneEvery, so an address spray does not make every connection scan the table.
  void Prune(MonoTime now);
  std::string CountLine(MonoTime now) const;

  static constexpr std::chrono::milliseconds kPruneEvery{100};

  const Clock& clock_;
  Limits limits_;
  std::unordered_map<std::string, Bucket> buckets_;
  MonoTime pruned_{};
  bool flooding_ = false;  // the first line of the current flood has been said
  MonoTime window_start_{};
  uint64_t unsaid_ = 0;  // closed since the last line
};

}  // namespace nicbench::engine
