// RttEstimator: round-trip time and jitter from a stream of RTT samples (milliseconds).
//
//   bitwire::RttEstimator rtt(256, 0.1, 0.1);   // history size, RTT and jitter smoothing factors
//   rtt.add_sample(102.5);                       // one sample per acked packet whose RTT is known
//   rtt.smoothed_ms(); rtt.jitter_ms(); rtt.min_ms(); rtt.max_ms(); rtt.avg_ms();
//
// Contracts:
// - smoothed_ms: the first sample as is, then an exponential moving average,
//   smoothed += (sample - smoothed) * rtt_smoothing.
// - jitter_ms: 0 at the first sample, then jitter += (|sample - smoothed| - jitter) * jitter_smoothing, with
//   the smoothed RTT from before the sample moves it: the smoothed mean absolute deviation of the samples
//   around their mean. It says how much one sample varies, so it reads 0 when every sample is the same.
// - min / max / avg: over the last `history_size` samples (0 before any), computed when asked. A history
//   size of 0 keeps none (they read 0) and allocates nothing.
// - A negative, NaN or infinite sample is refused (add_sample returns false) and changes nothing.
// - Memory: the history (history_size floats) is allocated by the constructor; nothing allocates after.
//   The estimator itself does not know where samples come from: the endpoint decides what a sample is
//   (docs/packets.md section 4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace bitwire {

class RttEstimator {
 public:
  // Smoothing factors in (0, 1] (the caller's config validates them).
  RttEstimator(size_t history_size, double rtt_smoothing, double jitter_smoothing);

  RttEstimator(const RttEstimator&) = delete;
  RttEstimator& operator=(const RttEstimator&) = delete;
  RttEstimator(RttEstimator&&) noexcept = default;
  RttEstimator& operator=(RttEstimator&&) noexcept = default;

  // Adds one sample. Returns false (and ignores it) when it is negative, NaN or infinite.
  bool add_sample(double sample_ms);
  // Back to no samples. Does not allocate.
  void reset();

  bool has_sample() const { return samples_ > 0; }
  uint64_t samples() const { return samples_; }  // accepted since construction or reset
  double smoothed_ms() const { return smoothed_; }
  double jitter_ms() const { return jitter_; }
  double min_ms() const;
  double max_ms() const;
  double avg_ms() const;

  size_t history_size() const { return history_size_; }
  // Bytes the constructor allocated.
  size_t memory_bytes() const { return memory_required(history_size_); }
  static size_t memory_required(size_t history_size) { return history_size * sizeof(float); }

 private:
  void refresh_summary() const;

  size_t history_size_;
  double rtt_smoothing_;
  double jitter_smoothing_;
  std::unique_ptr<float[]> history_;  // ring: sample i at i % history_size
  uint64_t samples_ = 0;
  double smoothed_ = 0.0;
  double jitter_ = 0.0;
  mutable bool summary_dirty_ = false;
  mutable double min_ = 0.0, max_ = 0.0, avg_ = 0.0;
};

}  // namespace bitwire
