// LossWindow: a ring of judged-lost flags and their running count.
#include "bitwire/packet/detail/loss_window.hpp"

#include <algorithm>
#include <cstring>

#include "bitwire/core/config.hpp"

namespace bitwire {

LossWindow::LossWindow(size_t window)
    : window_(std::max<size_t>(window, 1)), ring_(new uint8_t[std::max<size_t>(window, 1)]) {
  BITWIRE_ASSERT(window >= 1);
  reset();
}

uint64_t LossWindow::judge(bool lost) {
  const uint64_t index = judged_++;
  uint8_t& slot = ring_[index % window_];
  if (index >= window_) lost_ -= slot;
  slot = lost ? 1 : 0;
  lost_ += slot;
  return index;
}

bool LossWindow::take_back(uint64_t index) {
  if (index >= judged_ || judged_ - index > window_) return false;
  uint8_t& slot = ring_[index % window_];
  if (slot == 0) return false;
  slot = 0;
  --lost_;
  return true;
}

void LossWindow::reset() {
  std::memset(ring_.get(), 0, window_);
  judged_ = 0;
  lost_ = 0;
}

double LossWindow::loss_percent() const {
  const uint64_t judged = std::min<uint64_t>(judged_, window_);
  return judged == 0 ? 0.0 : 100.0 * static_cast<double>(lost_) / static_cast<double>(judged);
}

}  // namespace bitwire
