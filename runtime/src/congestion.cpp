#include "bitwire/congestion.hpp"

#include <algorithm>
#include <cmath>

#include "bitwire/config.hpp"
#include "bitwire/log.hpp"

namespace bitwire {

BinaryCongestionController::BinaryCongestionController(const BinaryCongestionConfig& config)
    : config_(config) {
  BITWIRE_ASSERT(config.good_send_rate > 0.0 && config.bad_send_rate > 0.0);
  BITWIRE_ASSERT(config.min_recover_time > 0.0 && config.min_recover_time <= config.max_recover_time);
  BITWIRE_ASSERT(config.initial_recover_time >= config.min_recover_time &&
                 config.initial_recover_time <= config.max_recover_time);
  BITWIRE_ASSERT(config.halving_period > 0.0 && config.relapse_window >= 0.0);
  reset();
}

void BinaryCongestionController::reset() {
  mode_ = config_.start_good ? CongestionMode::kGood : CongestionMode::kBad;
  recover_time_ = config_.initial_recover_time;
  started_ = false;
  last_update_ = 0.0;
  mode_entered_ = 0.0;
  good_since_ = 0.0;
  good_streak_ = false;
  halving_anchor_ = 0.0;
  drops_ = 0;
  recoveries_ = 0;
}

bool BinaryCongestionController::conditions_bad(const CongestionSignal& signal) const {
  // Written so that NaN compares as bad.
  return !(signal.rtt_ms <= config_.rtt_threshold_ms) ||
         !(signal.packet_loss_percent <= config_.loss_threshold_percent);
}

void BinaryCongestionController::update(double now, const CongestionSignal& signal) {
  if (!std::isfinite(now)) return;
  if (!started_) {
    started_ = true;
    mode_entered_ = now;
    halving_anchor_ = now;
  } else {
    now = std::max(now, last_update_);  // a step back in time counts as no time passing
  }
  last_update_ = now;
  const bool bad = conditions_bad(signal);

  if (mode_ == CongestionMode::kGood) {
    // Halvings earned so far come first: they belong to the good time before this update.
    while (now - halving_anchor_ >= config_.halving_period) {
      halving_anchor_ += config_.halving_period;
      if (recover_time_ <= config_.min_recover_time) {
        // Nothing left to halve: skip the remaining periods in one step (bounded work for any jump).
        halving_anchor_ = now - std::fmod(now - halving_anchor_, config_.halving_period);
        break;
      }
      recover_time_ = std::max(recover_time_ * 0.5, config_.min_recover_time);
    }
    if (bad) {
      if (now - mode_entered_ < config_.relapse_window) {
        recover_time_ = std::min(recover_time_ * 2.0, config_.max_recover_time);
      }
      mode_ = CongestionMode::kBad;
      mode_entered_ = now;
      good_streak_ = false;
      ++drops_;
      BITWIRE_LOG(LogLevel::kInfo,
                  "congestion: bad mode at %.3f s (rtt %.1f ms, loss %.1f%%), recover time %.3f s", now,
                  signal.rtt_ms, signal.packet_loss_percent, recover_time_);
    }
    return;
  }

  // Bad mode: the good streak is timed from the first good observation.
  if (bad) {
    good_streak_ = false;
    return;
  }
  if (!good_streak_) {
    good_streak_ = true;
    good_since_ = now;
  }
  if (now - good_since_ >= recover_time_) {
    mode_ = CongestionMode::kGood;
    mode_entered_ = now;
    halving_anchor_ = now;
    good_streak_ = false;
    ++recoveries_;
    BITWIRE_LOG(LogLevel::kInfo, "congestion: good mode at %.3f s after %.3f s of good conditions", now,
                now - good_since_);
  }
}

bool SendPacer::due(double now, double packets_per_second) {
  BITWIRE_ASSERT(packets_per_second > 0.0);
  if (!(packets_per_second > 0.0)) return false;
  const double interval = 1.0 / packets_per_second;
  if (!started_) {
    started_ = true;
    next_send_ = now + interval;
    return true;
  }
  if (now < next_send_) return false;
  next_send_ += interval;
  // Fell behind by more than an interval (a pause, or the rate went up): restart the schedule from now
  // rather than sending a burst to catch up.
  if (next_send_ <= now) next_send_ = now + interval;
  return true;
}

}  // namespace bitwire
