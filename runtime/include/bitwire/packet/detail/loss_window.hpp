// LossWindow: packet loss over the last N judged packets.
//
//   bitwire::LossWindow loss(256);
//   const uint64_t index = loss.judge(/*lost=*/true);   // a packet old enough to have been acked was not
//   loss.take_back(index);                              // its ack came late after all
//   loss.loss_percent();                                // lost / judged over the window, 0..100
//
// Contracts:
// - Each judged packet takes the next index; the window holds the last `window` indices. loss_percent is
//   lost / min(judged, window) * 100, 0 before anything is judged.
// - take_back(index) turns a packet judged lost into a received one while the index is still in the window;
//   for an index that left the window, or one not judged lost, it does nothing. Returns whether it did.
// - When to judge a packet (its age, eviction) is the caller's decision; this class only keeps the count.
// - Memory: one byte per window entry, allocated by the constructor; nothing allocates after.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace bitwire {

class LossWindow {
 public:
  explicit LossWindow(size_t window);  // window >= 1

  LossWindow(const LossWindow&) = delete;
  LossWindow& operator=(const LossWindow&) = delete;
  LossWindow(LossWindow&&) noexcept = default;
  LossWindow& operator=(LossWindow&&) noexcept = default;

  // Records one judged packet; returns its index (for take_back).
  uint64_t judge(bool lost);
  // A packet judged lost was received after all: it stops counting as lost if still in the window.
  bool take_back(uint64_t index);
  // Back to nothing judged. Does not allocate.
  void reset();

  double loss_percent() const;
  uint64_t judged() const { return judged_; }         // since construction or reset
  uint32_t lost_in_window() const { return lost_; }  // of the last min(judged, window)
  size_t window() const { return window_; }

  size_t memory_bytes() const { return memory_required(window_); }
  static size_t memory_required(size_t window) { return window; }

 private:
  size_t window_;
  std::unique_ptr<uint8_t[]> ring_;  // 1 = judged lost, by index % window
  uint64_t judged_ = 0;
  uint32_t lost_ = 0;
};

}  // namespace bitwire
