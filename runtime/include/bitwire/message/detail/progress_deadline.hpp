// A deadline that progress pushes back: what the reliable channel times on both sides of a block transfer
// (the peer's acks of a queued block, and the peer's fragments of a block reassembled in a borrowed pool
// buffer). A peer that keeps making progress is a slow link, not one holding a buffer.
#pragma once

#include <algorithm>
#include <cstdint>

namespace bitwire::detail {

struct ProgressDeadline {
  bool timed = false;     // started and not stopped
  bool overdue = false;   // the previous expired() call was already past the deadline
  uint32_t progress = 0;  // the count seen at the previous call (fragments acked or stored)
  double deadline = 0.0;

  // Times from `now`: `allowed` seconds, with `progress_now` as the count so far.
  void start(double now, double allowed, uint32_t progress_now) {
    timed = true;
    overdue = false;
    progress = progress_now;
    deadline = now + allowed;
  }

  // Called once per update while timed. A count above the previous call's gives `grace` from `now` again
  // (never an earlier deadline). True only at the second call past the deadline: an update runs before the
  // update's packets are read, so progress that was already waiting at the first one still counts.
  bool expired(double now, uint32_t progress_now, double grace) {
    if (progress_now > progress) deadline = std::max(deadline, now + grace);
    progress = progress_now;
    if (now <= deadline) {
      overdue = false;
      return false;
    }
    if (!overdue) {
      overdue = true;
      return false;
    }
    return true;
  }
};

}  // namespace bitwire::detail
