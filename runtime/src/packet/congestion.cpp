#include "bitwire/packet/congestion.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bitwire/core/config.hpp"
#include "bitwire/core/log.hpp"

namespace bitwire {

ConfigCheck BinaryCongestionConfig::check() const {
  return check_config("BinaryCongestionConfig", *this, kBinaryCongestionConfigLimits);
}

BinaryCongestionConfig BinaryCongestionConfig::sanitized() const {
  return sanitize_config(*this, kBinaryCongestionConfigLimits);
}

BinaryCongestionController::BinaryCongestionController(const BinaryCongestionConfig& config)
    : config_(config.sanitized()) {
  if (const ConfigCheck problem = config.check(); !problem) {
    keep_config_reason(error_reason_, problem);
    BITWIRE_LOG(LogLevel::kError, "congestion: config refused, running on its sanitized copy: %s",
                error_reason_);
  }
  reset();
}

void BinaryCongestionController::reset() {
  mode_ = config_.start_good ? CongestionMode::kGood : CongestionMode::kBad;
  recover_time_ = config_.initial_recover_time;
  started_ = false;
  clock_ = MonotonicTime();
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
  if (!clock_.advance(now)) return;
  now = clock_.now();
  if (!started_) {
    started_ = true;
    mode_entered_ = now;
    halving_anchor_ = now;
  }
  const bool bad = conditions_bad(signal);

  if (mode_ == CongestionMode::kGood) {
    // Halvings earned so far come first: they belong to the good time before this update.
    // The period is at least the table's minimum; the first test keeps the loop finite even if it were not.
    while (config_.halving_period > 0.0 && now - halving_anchor_ >= config_.halving_period) {
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
                  "congestion [%s]: bad mode at %.3f s (rtt %.1f ms, loss %.1f%%), recover time %.3f s",
                  log_name_, now, signal.rtt_ms, signal.packet_loss_percent, recover_time_);
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
    BITWIRE_LOG(LogLevel::kInfo, "congestion [%s]: good mode at %.3f s after %.3f s of good conditions",
                log_name_, now, now - good_since_);
  }
}

void BinaryCongestionController::set_log_name(const char* name) {
  std::snprintf(log_name_, sizeof log_name_, "%s", name != nullptr ? name : "unnamed connection");
}

bool SendPacer::due(double now, double packets_per_second) {
  if (!clock_.advance(now)) return false;
  now = clock_.now();
  double rate = packets_per_second;
  if (!(rate >= kMinSendRate && rate <= kMaxSendRate)) {
    ++rates_clamped_;
    rate = rate > kMaxSendRate ? kMaxSendRate : kMinSendRate;  // NaN, zero and negatives: the minimum
  }
  const double interval = 1.0 / rate;
  if (!started_) {
    started_ = true;
    last_send_ = now;
    next_send_ = now + interval;
    return true;
  }
  // A schedule made at a lower rate must not hold back the higher one.
  next_send_ = std::min(next_send_, last_send_ + interval);
  if (now < next_send_) return false;
  last_send_ = now;
  next_send_ += interval;
  // Fell behind by more than an interval (a pause, or the rate went up): restart the schedule from now
  // rather than sending a burst to catch up.
  if (next_send_ <= now) next_send_ = now + interval;
  return true;
}

}  // namespace bitwire
