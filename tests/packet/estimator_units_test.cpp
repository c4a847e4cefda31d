// The estimators the endpoint (and the connection and chunk code) build on, each on its own: known sample
// sequences give known outputs; bad samples and times change nothing; nothing allocates after
// construction.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bitwire/packet/detail/bandwidth_meter.hpp"
#include "bitwire/packet/detail/loss_window.hpp"
#include "bitwire/packet/detail/rtt_estimator.hpp"
#include "support/endpoint_harness.hpp"

namespace bitwire {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- RttEstimator ----

TEST(RttEstimator, EmptyReadsZero) {
  RttEstimator rtt(8, 0.1, 0.1);
  EXPECT_FALSE(rtt.has_sample());
  EXPECT_EQ(rtt.smoothed_ms(), 0.0);
  EXPECT_EQ(rtt.jitter_ms(), 0.0);
  EXPECT_EQ(rtt.min_ms(), 0.0);
  EXPECT_EQ(rtt.max_ms(), 0.0);
  EXPECT_EQ(rtt.avg_ms(), 0.0);
}

TEST(RttEstimator, KnownSequence) {
  RttEstimator rtt(8, 0.5, 0.5);
  ASSERT_TRUE(rtt.add_sample(100.0));  // first: taken as is
  EXPECT_EQ(rtt.smoothed_ms(), 100.0);
  EXPECT_EQ(rtt.jitter_ms(), 0.0);
  ASSERT_TRUE(rtt.add_sample(200.0));  // jitter 0 + (100 - 0) / 2 = 50, then rtt 100 + 100 / 2 = 150
  EXPECT_EQ(rtt.jitter_ms(), 50.0);
  EXPECT_EQ(rtt.smoothed_ms(), 150.0);
  ASSERT_TRUE(rtt.add_sample(150.0));  // jitter 50 + (0 - 50) / 2 = 25, rtt stays 150
  EXPECT_EQ(rtt.jitter_ms(), 25.0);
  EXPECT_EQ(rtt.smoothed_ms(), 150.0);
  ASSERT_TRUE(rtt.add_sample(50.0));  // jitter 25 + (100 - 25) / 2 = 62.5, rtt 150 - 100 / 2 = 100
  EXPECT_EQ(rtt.jitter_ms(), 62.5);
  EXPECT_EQ(rtt.smoothed_ms(), 100.0);
  EXPECT_EQ(rtt.min_ms(), 50.0);
  EXPECT_EQ(rtt.max_ms(), 200.0);
  EXPECT_EQ(rtt.avg_ms(), 125.0);
  EXPECT_EQ(rtt.samples(), 4u);
}

TEST(RttEstimator, ConstantSamplesHaveNoJitter) {
  RttEstimator rtt(16, 0.1, 0.1);
  for (int i = 0; i < 1000; ++i) rtt.add_sample(87.25);
  EXPECT_EQ(rtt.smoothed_ms(), 87.25);
  EXPECT_EQ(rtt.jitter_ms(), 0.0);
}

TEST(RttEstimator, AlternatingSamplesConvergeToMeanAndDeviation) {
  // 80, 120, 80, ...: mean 100, every sample 20 away from it.
  RttEstimator rtt(256, 0.1, 0.1);
  for (int i = 0; i < 2000; ++i) rtt.add_sample(i % 2 ? 120.0 : 80.0);
  EXPECT_NEAR(rtt.smoothed_ms(), 100.0, 1.1);  // an EWMA of 0.1 swings about +-1 around the mean
  EXPECT_NEAR(rtt.jitter_ms(), 20.0, 1.1);
  EXPECT_EQ(rtt.avg_ms(), 100.0);
}

TEST(RttEstimator, MinMaxAverageOverTheLastHistorySizeSamples) {
  RttEstimator rtt(4, 0.1, 0.1);
  for (int i = 1; i <= 6; ++i) rtt.add_sample(static_cast<double>(i));  // the ring holds 3, 4, 5, 6
  EXPECT_EQ(rtt.min_ms(), 3.0);
  EXPECT_EQ(rtt.max_ms(), 6.0);
  EXPECT_EQ(rtt.avg_ms(), 4.5);
  rtt.add_sample(100.0);  // 4, 5, 6, 100
  EXPECT_EQ(rtt.min_ms(), 4.0);
  EXPECT_EQ(rtt.max_ms(), 100.0);
  EXPECT_EQ(rtt.avg_ms(), 28.75);
}

TEST(RttEstimator, RefusesNegativeNaNAndInfiniteSamples) {
  RttEstimator rtt(4, 0.1, 0.1);
  rtt.add_sample(50.0);
  for (const double bad : {-0.001, -kInf, kInf, kNaN}) {
    EXPECT_FALSE(rtt.add_sample(bad)) << bad;
  }
  EXPECT_EQ(rtt.samples(), 1u);
  EXPECT_EQ(rtt.smoothed_ms(), 50.0);
  EXPECT_EQ(rtt.jitter_ms(), 0.0);
  EXPECT_EQ(rtt.max_ms(), 50.0);
  EXPECT_TRUE(rtt.add_sample(0.0));  // zero is a sample (a loopback)
}

TEST(RttEstimator, ResetForgetsEverything) {
  RttEstimator rtt(4, 0.1, 0.1);
  rtt.add_sample(10.0);
  rtt.add_sample(30.0);
  rtt.reset();
  EXPECT_FALSE(rtt.has_sample());
  EXPECT_EQ(rtt.smoothed_ms(), 0.0);
  EXPECT_EQ(rtt.jitter_ms(), 0.0);
  EXPECT_EQ(rtt.min_ms(), 0.0);
  rtt.add_sample(70.0);
  EXPECT_EQ(rtt.smoothed_ms(), 70.0);
  EXPECT_EQ(rtt.min_ms(), 70.0);
  EXPECT_EQ(rtt.avg_ms(), 70.0);
}

// ---- LossWindow ----

TEST(LossWindow, EmptyReadsZero) {
  LossWindow loss(8);
  EXPECT_EQ(loss.loss_percent(), 0.0);
  EXPECT_EQ(loss.judged(), 0u);
}

TEST(LossWindow, KnownSequenceBeforeAndAfterTheWindowFills) {
  LossWindow loss(4);
  EXPECT_EQ(loss.judge(true), 0u);  // L
  EXPECT_EQ(loss.loss_percent(), 100.0);
  EXPECT_EQ(loss.judge(false), 1u);  // L R
  EXPECT_EQ(loss.loss_percent(), 50.0);
  loss.judge(false);  // L R R
  loss.judge(true);   // L R R L
  EXPECT_EQ(loss.loss_percent(), 50.0);
  loss.judge(false);  // (L) R R L R: the first loss left the window
  EXPECT_EQ(loss.loss_percent(), 25.0);
  EXPECT_EQ(loss.lost_in_window(), 1u);
  loss.judge(false);  // R L R R
  loss.judge(false);  // L R R R
  loss.judge(false);  // R R R R
  EXPECT_EQ(loss.loss_percent(), 0.0);
  EXPECT_EQ(loss.judged(), 8u);
}

TEST(LossWindow, TakeBackOnlyInsideTheWindowAndOnlyOnce) {
  LossWindow loss(4);
  const uint64_t first = loss.judge(true);
  const uint64_t received = loss.judge(false);
  const uint64_t second = loss.judge(true);
  EXPECT_NEAR(loss.loss_percent(), 200.0 / 3.0, 1e-12);
  EXPECT_TRUE(loss.take_back(second));
  EXPECT_FALSE(loss.take_back(second));    // already taken back
  EXPECT_FALSE(loss.take_back(received));  // never lost
  EXPECT_FALSE(loss.take_back(99));        // never judged
  EXPECT_NEAR(loss.loss_percent(), 100.0 / 3.0, 1e-12);
  for (int i = 0; i < 4; ++i) loss.judge(false);  // `first` leaves the window
  EXPECT_FALSE(loss.take_back(first));
  EXPECT_EQ(loss.loss_percent(), 0.0);
}

TEST(LossWindow, ResetForgetsEverything) {
  LossWindow loss(4);
  loss.judge(true);
  loss.reset();
  EXPECT_EQ(loss.loss_percent(), 0.0);
  EXPECT_EQ(loss.judged(), 0u);
  loss.judge(false);
  EXPECT_EQ(loss.loss_percent(), 0.0);
}

TEST(LossWindow, WindowOfOne) {
  LossWindow loss(1);
  loss.judge(true);
  EXPECT_EQ(loss.loss_percent(), 100.0);
  loss.judge(false);
  EXPECT_EQ(loss.loss_percent(), 0.0);
}

// ---- BandwidthMeter ----

TEST(BandwidthMeter, KnownSequence) {
  BandwidthMeter meter(0.1, 0.5, 0.0);
  meter.add(1000);
  meter.update(0.05);  // the sample is not closed yet
  EXPECT_FALSE(meter.has_sample());
  EXPECT_EQ(meter.kbps(), 0.0);
  meter.add(250);
  meter.update(0.1);  // 1250 bytes in 0.1 s = 100 kbit/s, taken as is
  EXPECT_TRUE(meter.has_sample());
  EXPECT_NEAR(meter.kbps(), 100.0, 1e-9);
  meter.add(500);
  meter.update(0.2);  // 40 kbit/s: 100 + (40 - 100) / 2 = 70
  EXPECT_NEAR(meter.kbps(), 70.0, 1e-9);
  meter.update(0.4);  // nothing in 0.2 s: 70 / 2 = 35
  EXPECT_NEAR(meter.kbps(), 35.0, 1e-9);
}

TEST(BandwidthMeter, SteadyRateReadsThatRate) {
  BandwidthMeter meter(0.1, 0.1, 10.0);
  for (int tick = 1; tick <= 600; ++tick) {  // 136 bytes at 60 Hz for 10 s
    meter.add(136);
    meter.update(10.0 + tick / 60.0);
  }
  EXPECT_NEAR(meter.kbps(), 136 * 8 * 60 / 1000.0, 2.0);  // a sample spans 6 or 7 ticks
}

TEST(BandwidthMeter, IgnoresBackwardAndNonFiniteTimes) {
  BandwidthMeter meter(0.1, 0.5, 1.0);
  meter.add(1250);
  meter.update(kNaN);
  meter.update(kInf);
  meter.update(0.5);  // before the sample's start
  EXPECT_FALSE(meter.has_sample());
  meter.update(1.1);
  EXPECT_NEAR(meter.kbps(), 100.0, 1e-9);
}

TEST(BandwidthMeter, ResetStartsOver) {
  BandwidthMeter meter(0.1, 0.5, 0.0);
  meter.add(1250);
  meter.update(0.1);
  meter.reset(5.0);
  EXPECT_FALSE(meter.has_sample());
  EXPECT_EQ(meter.kbps(), 0.0);
  meter.add(2500);
  meter.update(5.25);  // 2500 bytes in 0.25 s, taken as is (the first sample after the reset)
  EXPECT_NEAR(meter.kbps(), 80.0, 1e-9);
}

// ---- Memory ----

TEST(Estimators, MemoryIsFixedAtConstruction) {
  EXPECT_EQ(RttEstimator::memory_required(256), 256 * sizeof(float));
  EXPECT_EQ(LossWindow::memory_required(256), 256u);
  const auto before_construction = test::counting_allocations;
  RttEstimator rtt(256, 0.1, 0.1);
  LossWindow loss(256);
  BandwidthMeter meter(0.1, 0.1, 0.0);
  const auto constructed = test::counting_allocations;
  EXPECT_EQ(constructed.count - before_construction.count, 2u);
  EXPECT_EQ(constructed.bytes - before_construction.bytes, rtt.memory_bytes() + loss.memory_bytes());
  for (int i = 0; i < 100000; ++i) {
    rtt.add_sample(50.0 + i % 7);
    (void)rtt.min_ms();
    const uint64_t index = loss.judge(i % 3 == 0);
    loss.take_back(index);
    meter.add(100);
    meter.update(i * 0.01);
  }
  rtt.reset();
  loss.reset();
  meter.reset(0.0);
  EXPECT_EQ(test::counting_allocations.count, constructed.count);
}

}  // namespace
}  // namespace bitwire
