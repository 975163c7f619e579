// TurnWindow: which of a worker's many bulk senders may send now. With thousands of flows
// every socket otherwise holds a send and a receive queue full of data at once (hundreds of MB
// across a thousand sockets, against a few MB for two), so the copies into and out of the
// kernel miss the CPU's caches. A worker with more than kTurnWindowAbove such senders lets
// only a few of them send at a time, each for one wakeup of at most kTurnBytes, and passes the
// turn on round-robin: the idle flows' queues drain, the data in flight stays that of a few
// flows, and every flow still gets a turn every (flows / width) turns. Where sockets fill
// before a turn's bytes (a link slower than the host) the window widens until every flow
// sends at once, as without it. Only the order of the writes
// changes: any receiver (a stock iperf3 peer too) reads the same bytes of the same streams.
//
// Pure bookkeeping over slot indices; the worker arms and disarms the sockets it names.
// Thread safety: one worker's thread only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace nicbench::engine {

// A worker rotates its bulk senders once it has more than this many (with up to this many,
// every flow sends at once, as before: one to eight streams keep their path).
inline constexpr size_t kTurnWindowAbove = 8;
// Senders sending at once per worker while their turns end on the turn's bytes, and the most
// bytes of one turn.
inline constexpr size_t kTurnWindowWidth = 2;
inline constexpr uint32_t kTurnBytes = 2u << 20;

class TurnWindow {
 public:
  // `width` senders at once at least, `max_width` (all of the worker's senders) at most.
  TurnWindow(size_t width, size_t max_width)
      : min_width_(std::max<size_t>(width, 1)),
        max_width_(std::max(max_width, min_width_)),
        width_(min_width_) {}

  // Enrols a sender (before the loop starts): true if it starts inside the window.
  bool Enrol(size_t slot);
  // `slot`'s turn is over and it goes to the back of the line. `socket_full`: the turn ended
  // because the socket took no more (the network, not this host, holds the flow back), which
  // widens the window by one, so over a slow link all flows soon send at once as without it;
  // a turn that moved its whole quota narrows it by one, down to the initial width. Returns
  // the senders admitted (possibly `slot` again), oldest first.
  std::vector<size_t> Pass(size_t slot, bool socket_full);
  // `slot` is gone (done, closed, failed). Returns the senders admitted in its place.
  std::vector<size_t> Leave(size_t slot);

  bool Sending(size_t slot) const { return slot < sending_.size() && sending_[slot]; }
  size_t waiting() const { return line_.size(); }
  size_t width() const { return width_; }

 private:
  void Mark(size_t slot, bool sending);
  std::vector<size_t> Admit();

  const size_t min_width_;
  const size_t max_width_;
  size_t width_;
  size_t inside_ = 0;
  std::deque<size_t> line_;    // enrolled senders waiting for a turn, oldest first
  std::vector<bool> sending_;  // by slot: inside the window
  std::vector<bool> gone_;     // by slot: left while waiting (skipped when its turn comes)
};

}  // namespace nicbench::engine
