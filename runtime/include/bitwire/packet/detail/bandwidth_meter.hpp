// BandwidthMeter: a smoothed rate of bytes, in kilobits (1000 bits) per second.
//
//   bitwire::BandwidthMeter sent(0.1, 0.1, now);   // sample interval (s), smoothing factor, start time
//   sent.add(datagram_bytes);                     // as bytes go by
//   sent.update(now);                             // each tick
//   sent.kbps();
//
// Contracts:
// - Bytes added are summed over a sample: from the sample's start to the first update() at least
//   `sample_interval` seconds later, which closes it at bytes * 8 / 1000 / elapsed. The first sample is
//   taken as is, later ones smoothed: kbps += (sample - kbps) * smoothing. 0 before the first sample.
// - Time only moves forward: an update() with a time that is not later than the sample's start, or is
//   NaN or infinite, does nothing.
// - No memory beyond the object; nothing allocates.
#pragma once

#include <cstdint>

namespace bitwire {

class BandwidthMeter {
 public:
  // sample_interval > 0 seconds; smoothing in (0, 1] (the caller's config validates them).
  BandwidthMeter(double sample_interval, double smoothing, double now);

  void add(uint64_t bytes) { bytes_ += bytes; }
  void update(double now);
  // Back to no samples; the next sample starts at `now`.
  void reset(double now);

  double kbps() const { return kbps_; }
  bool has_sample() const { return has_sample_; }

 private:
  double sample_interval_;
  double smoothing_;
  double sample_start_ = 0.0;
  uint64_t bytes_ = 0;
  bool has_sample_ = false;
  double kbps_ = 0.0;
};

}  // namespace bitwire
