// TickClock: the demo's clock, and the dates of datagrams on it.
//
// The demo's clock is stepped: a tick runs at one time, its `now`, for every end (the server stamps what it
// sends with it, each client's links run at it), with a real or a simulated (--fast) clock alike. A datagram
// is dated on this clock by the tick that was running when the kernel received it: its SO_TIMESTAMPNS stamp
// (CLOCK_REALTIME, Datagram::kernel_time) against the CLOCK_REALTIME reading taken as each tick began. So a
// datagram the server sent during tick T is dated T however late the receiver reads its socket.
//
// Contracts:
// - Fixed memory: the last kHistory ticks are kept; a stamp older than all of them is dated at the oldest.
// - A missing or non-finite stamp (an OS without SO_TIMESTAMPNS) is dated at the current tick.
// - Dates never decrease with the stamp and never exceed the current tick's time. Before the first tick: NaN.
#pragma once

#include <array>
#include <cmath>
#include <limits>

#include "bitwire/transport/udp_socket.hpp"

namespace demo {

class TickClock {
 public:
  static constexpr int kHistory = 64;

  // Starts a tick at `now` (seconds, never decreasing), read against CLOCK_REALTIME now.
  void begin_tick(double now) { begin_tick(now, bitwire::realtime_seconds()); }
  // The same with the CLOCK_REALTIME reading given (tests).
  void begin_tick(double now, double realtime) {
    newest_ = (newest_ + 1) % kHistory;
    ticks_[static_cast<size_t>(newest_)] = Tick{realtime, now};
    if (count_ < kHistory) ++count_;
  }

  // The current tick's time; NaN before the first tick.
  double now() const { return count_ == 0 ? kNaN : ticks_[static_cast<size_t>(newest_)].time; }

  // The time of the tick that was running when CLOCK_REALTIME read `kernel_time`.
  double at_realtime(double kernel_time) const {
    if (count_ == 0) return kNaN;
    if (!std::isfinite(kernel_time)) return now();
    int index = newest_;
    for (int i = 0; i < count_; ++i) {
      const Tick& tick = ticks_[static_cast<size_t>(index)];
      if (tick.realtime <= kernel_time || i == count_ - 1) return tick.time;
      index = (index + kHistory - 1) % kHistory;
    }
    return now();  // not reached: the loop returns at its last tick
  }

 private:
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  struct Tick {
    double realtime = 0.0;  // CLOCK_REALTIME as the tick began
    double time = 0.0;      // the tick's `now` on the demo's clock
  };
  std::array<Tick, kHistory> ticks_{};
  int newest_ = -1;
  int count_ = 0;
};

}  // namespace demo
