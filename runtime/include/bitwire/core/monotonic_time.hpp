// MonotonicTime: how a layer takes the time its caller passes in (update(now), send(now), ...).
//
// Times are seconds as doubles, any origin. A layer must survive whatever the caller passes:
// - a non-finite time (NaN, +-inf) or one beyond +-kMaxTimeSeconds is ignored: the layer's time does not
//   change, so no estimator ever sees NaN, an infinity or a jump of centuries it could never recover from;
// - a time earlier than the current one counts as no time passing (the current time is kept).
// Both are counted, so a caller with a broken clock can see it.
#pragma once

#include <cmath>
#include <cstdint>

namespace bitwire {

// 2^40 s, about 34,800 years: room for any epoch (Unix time is 1.8e9 s) while a double still resolves
// 0.25 ms at that magnitude.
inline constexpr double kMaxTimeSeconds = 1099511627776.0;

// True for a time a layer accepts.
constexpr bool valid_time(double seconds) {
  return seconds >= -kMaxTimeSeconds && seconds <= kMaxTimeSeconds;  // false for NaN and infinities
}

class MonotonicTime {
 public:
  // Not started: the first valid time passed to advance() is taken as it is.
  MonotonicTime() = default;
  // Started at `start` (at 0 when `start` is not a valid time).
  explicit MonotonicTime(double start) { restart(start); }

  void restart(double start) {
    now_ = valid_time(start) ? start : 0.0;
    started_ = true;
  }

  // Moves to `seconds`. Returns false when the time was ignored (invalid); a step back returns true and
  // keeps the current time.
  bool advance(double seconds) {
    if (!valid_time(seconds)) {
      ++ignored_;
      return false;
    }
    if (started_ && seconds < now_) {
      ++backwards_;
      return true;
    }
    now_ = seconds;
    started_ = true;
    return true;
  }

  double now() const { return now_; }  // 0 before the first valid time
  bool started() const { return started_; }
  uint64_t ignored() const { return ignored_; }      // non-finite or out-of-range times ignored
  uint64_t backwards() const { return backwards_; }  // steps back, clamped to the current time
  void clear_counters() { ignored_ = backwards_ = 0; }

 private:
  double now_ = 0.0;
  bool started_ = false;
  uint64_t ignored_ = 0;
  uint64_t backwards_ = 0;
};

}  // namespace bitwire
