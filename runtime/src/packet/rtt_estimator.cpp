// RttEstimator: smoothed RTT, jitter, and min / max / average over a ring of recent samples.
#include "bitwire/packet/detail/rtt_estimator.hpp"

#include <algorithm>
#include <cmath>


namespace bitwire {

RttEstimator::RttEstimator(size_t history_size, double rtt_smoothing, double jitter_smoothing)
    : history_size_(history_size),
      rtt_smoothing_(rtt_smoothing),
      jitter_smoothing_(jitter_smoothing),
      history_(history_size > 0 ? new float[history_size] : nullptr) {
  reset();
}

bool RttEstimator::add_sample(double sample_ms) {
  if (!(sample_ms >= 0.0) || !std::isfinite(sample_ms)) return false;
  if (samples_ == 0) {
    smoothed_ = sample_ms;
    jitter_ = 0.0;
  } else {
    jitter_ += (std::fabs(sample_ms - smoothed_) - jitter_) * jitter_smoothing_;
    smoothed_ += (sample_ms - smoothed_) * rtt_smoothing_;
  }
  if (history_size_ > 0) history_[samples_ % history_size_] = static_cast<float>(sample_ms);
  ++samples_;
  summary_dirty_ = true;
  return true;
}

void RttEstimator::reset() {
  samples_ = 0;
  smoothed_ = jitter_ = 0.0;
  summary_dirty_ = false;
  min_ = max_ = avg_ = 0.0;
}

void RttEstimator::refresh_summary() const {
  if (!summary_dirty_) return;
  summary_dirty_ = false;
  const size_t count = static_cast<size_t>(std::min<uint64_t>(samples_, history_size_));
  if (count == 0) {
    min_ = max_ = avg_ = 0.0;
    return;
  }
  double lo = history_[0], hi = history_[0], sum = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const double v = history_[i];
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  min_ = lo;
  max_ = hi;
  avg_ = sum / static_cast<double>(count);
}

double RttEstimator::min_ms() const {
  refresh_summary();
  return min_;
}
double RttEstimator::max_ms() const {
  refresh_summary();
  return max_;
}
double RttEstimator::avg_ms() const {
  refresh_summary();
  return avg_;
}

}  // namespace bitwire
