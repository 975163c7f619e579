#include "engine/datapath/turn_window.h"

namespace nicbench::engine {

void TurnWindow::Mark(size_t slot, bool sending) {
  if (slot >= sending_.size()) {
    sending_.resize(slot + 1, false);
    gone_.resize(slot + 1, false);
  }
  sending_[slot] = sending;
}

bool TurnWindow::Enrol(size_t slot) {
  const bool inside = inside_ < width_;
  Mark(slot, inside);
  if (inside) {
    ++inside_;
  } else {
    line_.push_back(slot);
  }
  return inside;
}

std::vector<size_t> TurnWindow::Admit() {
  std::vector<size_t> admitted;
  while (inside_ < width_ && !line_.empty()) {
    const size_t next = line_.front();
    line_.pop_front();
    if (gone_[next]) continue;
    Mark(next, true);
    ++inside_;
    admitted.push_back(next);
  }
  return admitted;
}

std::vector<size_t> TurnWindow::Pass(size_t slot, bool socket_full) {
  if (!Sending(slot)) return {};
  width_ = socket_full ? std::min(width_ + 1, max_width_) : std::max(width_ - 1, min_width_);
  Mark(slot, false);
  --inside_;
  line_.push_back(slot);
  return Admit();
}

std::vector<size_t> TurnWindow::Leave(size_t slot) {
  if (slot >= gone_.size() || gone_[slot]) return {};
  gone_[slot] = true;
  if (!Sending(slot)) return {};  // waiting: skipped when the line reaches it
  Mark(slot, false);
  --inside_;
  return Admit();
}

}  // namespace nicbench::engine
