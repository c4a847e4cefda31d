// BandwidthMeter: bytes summed per sample interval, then smoothed.
#include "bitwire/packet/detail/bandwidth_meter.hpp"

#include <cmath>

namespace bitwire {

BandwidthMeter::BandwidthMeter(double sample_interval, double smoothing, double now)
    : sample_interval_(sample_interval), smoothing_(smoothing) {
  reset(now);
}

void BandwidthMeter::update(double now) {
  if (!std::isfinite(now)) return;
  const double elapsed = now - sample_start_;
  if (!(elapsed > 0.0) || elapsed < sample_interval_) return;
  const double sample = static_cast<double>(bytes_) * 8.0 / 1000.0 / elapsed;
  if (!has_sample_) {
    has_sample_ = true;
    kbps_ = sample;
  } else {
    kbps_ += (sample - kbps_) * smoothing_;
  }
  bytes_ = 0;
  sample_start_ = now;
}

void BandwidthMeter::reset(double now) {
  sample_start_ = std::isfinite(now) ? now : 0.0;
  bytes_ = 0;
  has_sample_ = false;
  kbps_ = 0.0;
}

}  // namespace bitwire
