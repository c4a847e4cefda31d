// BinaryCongestionController: the state machine and timings of the article's simple binary congestion
// avoidance, driven with synthetic statistics at 64 updates per second (a tick that binary floating
// point holds exactly, so the boundaries below are exact); and SendPacer.
#include "bitwire/packet/congestion.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace bitwire {
namespace {

constexpr double kTick = 1.0 / 64.0;
constexpr double kGoodRtt = 100.0;
constexpr double kBadRtt = 400.0;

// Steps a controller tick by tick (times are tick * kTick, never accumulated) and records mode changes.
struct Driver {
  BinaryCongestionController controller;
  long tick = 0;
  std::vector<std::pair<double, CongestionMode>> changes;

  explicit Driver(const BinaryCongestionConfig& config = {}) : controller(config) {}

  double now() const { return static_cast<double>(tick) * kTick; }

  // Runs updates at ticks [tick, tick + seconds / kTick) with the given RTT and loss.
  void run(double seconds, double rtt_ms, double loss_percent = 0.0) {
    const long end = tick + std::lround(seconds / kTick);
    for (; tick < end; ++tick) {
      const CongestionMode before = controller.mode();
      controller.update(now(), rtt_ms, loss_percent);
      if (controller.mode() != before) changes.emplace_back(now(), controller.mode());
    }
  }
  // Runs good conditions until the controller is good; returns the time it switched.
  double run_until_good(double limit = 100.0) {
    const long end = tick + std::lround(limit / kTick);
    while (tick < end) {
      controller.update(now(), kGoodRtt, 0.0);
      ++tick;
      if (controller.mode() == CongestionMode::kGood) {
        changes.emplace_back(now() - kTick, CongestionMode::kGood);
        return now() - kTick;
      }
    }
    return -1.0;
  }
};

TEST(BinaryCongestion, DefaultsAreTheArticles) {
  const BinaryCongestionConfig config;
  EXPECT_EQ(config.good_send_rate, 30.0);
  EXPECT_EQ(config.bad_send_rate, 10.0);
  EXPECT_EQ(config.rtt_threshold_ms, 250.0);
  EXPECT_EQ(config.loss_threshold_percent, 20.0);
  EXPECT_EQ(config.initial_recover_time, 4.0);
  EXPECT_EQ(config.min_recover_time, 1.0);
  EXPECT_EQ(config.max_recover_time, 60.0);
  EXPECT_EQ(config.relapse_window, 10.0);
  EXPECT_EQ(config.halving_period, 10.0);
  const BinaryCongestionController controller;
  EXPECT_EQ(controller.mode(), CongestionMode::kBad);
  EXPECT_EQ(controller.send_rate(), 10.0);
  EXPECT_EQ(controller.recover_time(), config.initial_recover_time);
}

TEST(BinaryCongestion, NewConnectionEarnsGoodModeAfterTheRecoverTime) {
  Driver driver;
  driver.run(4.0 - kTick, kGoodRtt);  // every update before 4.0
  EXPECT_EQ(driver.controller.mode(), CongestionMode::kBad);
  EXPECT_DOUBLE_EQ(driver.run_until_good(), 4.0);
  EXPECT_EQ(driver.controller.send_rate(), 30.0);
  EXPECT_EQ(driver.controller.recoveries(), 1u);
  EXPECT_EQ(driver.controller.recover_time(), 4.0);  // recovering does not change it
}

TEST(BinaryCongestion, RttAboveThresholdDropsToBadAtOnce) {
  BinaryCongestionConfig config;
  config.start_good = true;
  Driver driver(config);
  driver.run(1.0, 250.0);  // at the threshold is still good ("exceeds" is bad)
  EXPECT_EQ(driver.controller.mode(), CongestionMode::kGood);
  driver.run(kTick, 250.001);
  EXPECT_EQ(driver.controller.mode(), CongestionMode::kBad);
  EXPECT_EQ(driver.controller.send_rate(), 10.0);
  ASSERT_EQ(driver.changes.size(), 1u);
  EXPECT_DOUBLE_EQ(driver.changes[0].first, 1.0);
  EXPECT_EQ(driver.controller.drops(), 1u);
}

TEST(BinaryCongestion, LossAboveThresholdIsBadUnlessConfiguredOff) {
  BinaryCongestionConfig config;
  config.start_good = true;
  Driver driver(config);
  driver.run(1.0, kGoodRtt, 20.0);
  EXPECT_EQ(driver.controller.mode(), CongestionMode::kGood);
  driver.run(kTick, kGoodRtt, 20.5);
  EXPECT_EQ(driver.controller.mode(), CongestionMode::kBad);

  config.loss_threshold_percent = 100.0;  // the article's RTT-only rule
  Driver rtt_only(config);
  rtt_only.run(5.0, kGoodRtt, 99.0);
  EXPECT_EQ(rtt_only.controller.mode(), CongestionMode::kGood);
}

TEST(BinaryCongestion, NanStatisticsCountAsBad) {
  BinaryCongestionConfig config;
  config.start_good = true;
  BinaryCongestionController rtt(config), loss(config);
  rtt.update(0.0, std::nan(""), 0.0);
  loss.update(0.0, kGoodRtt, std::nan(""));
  EXPECT_EQ(rtt.mode(), CongestionMode::kBad);
  EXPECT_EQ(loss.mode(), CongestionMode::kBad);
}

TEST(BinaryCongestion, ABadSampleRestartsTheGoodStreak) {
  Driver driver;  // bad mode, recover time 4
  driver.run(3.0, kGoodRtt);
  driver.run(kTick, kBadRtt);                // at 3.0
  const double streak_start = driver.now();  // the next update
  EXPECT_DOUBLE_EQ(driver.run_until_good(), streak_start + 4.0);
  EXPECT_EQ(driver.controller.recover_time(), 4.0);  // bad samples in bad mode change nothing else
}

TEST(BinaryCongestion, QuickRelapsesDoubleTheRecoverTimeUpTo60Seconds) {
  Driver driver;
  double good_at = driver.run_until_good();
  EXPECT_DOUBLE_EQ(good_at, 4.0);
  const double expected[] = {8.0, 16.0, 32.0, 60.0, 60.0};
  for (double recover : expected) {
    driver.run(5.0, kGoodRtt);  // 5 s of good mode: a relapse within the 10 s window
    driver.run(kTick, kBadRtt);
    ASSERT_EQ(driver.controller.mode(), CongestionMode::kBad);
    EXPECT_EQ(driver.controller.recover_time(), recover);
    const double streak_start = driver.now();
    good_at = driver.run_until_good();
    EXPECT_NEAR(good_at - streak_start, recover, 1e-9) << "recover time " << recover;
  }
  EXPECT_EQ(driver.controller.drops(), 5u);
}

TEST(BinaryCongestion, RelapseWindowBoundary) {
  // Dropping one tick under 10 s after reaching good doubles; at 10 s it does not (and the halving earned
  // at 10 s comes first).
  for (const auto& [good_seconds, expected] : {std::pair{10.0 - kTick, 8.0}, std::pair{10.0, 2.0}}) {
    Driver driver;
    driver.run_until_good();                     // good at 4.0
    driver.run(good_seconds - kTick, kGoodRtt);  // good updates up to the drop
    driver.run(kTick, kBadRtt);                  // drop at 4.0 + good_seconds
    EXPECT_EQ(driver.controller.mode(), CongestionMode::kBad);
    EXPECT_EQ(driver.controller.recover_time(), expected) << "after " << good_seconds << " s of good mode";
  }
}

TEST(BinaryCongestion, EachTenSecondsOfGoodModeHalvesTheRecoverTimeDownTo1) {
  Driver driver;
  driver.run_until_good();
  for (int i = 0; i < 4; ++i) {  // 8, 16, 32, 60
    driver.run(1.0, kGoodRtt);
    driver.run(kTick, kBadRtt);
    driver.run_until_good(100.0);
  }
  ASSERT_EQ(driver.controller.recover_time(), 60.0);
  const double good_since = driver.changes.back().first;
  const double halvings[] = {30.0, 15.0, 7.5, 3.75, 1.875, 1.0, 1.0};
  for (int i = 0; i < 7; ++i) {
    // Just before the (i+1)-th period ends nothing changes; at its end the time halves.
    const double before = i == 0 ? 60.0 : halvings[i - 1];
    driver.run(good_since + 10.0 * (i + 1) - driver.now(), kGoodRtt);  // up to the boundary, exclusive
    EXPECT_EQ(driver.controller.recover_time(), before) << "period " << i + 1;
    driver.run(kTick, kGoodRtt);
    EXPECT_EQ(driver.controller.recover_time(), halvings[i]) << "period " << i + 1;
  }
  EXPECT_EQ(driver.controller.mode(), CongestionMode::kGood);
}

TEST(BinaryCongestion, HalvedTimeGovernsTheNextRecovery) {
  Driver driver;
  driver.run_until_good();     // good at 4, recover time 4
  driver.run(25.0, kGoodRtt);  // halved at 14 and 24: 1
  EXPECT_EQ(driver.controller.recover_time(), 1.0);
  driver.run(kTick, kBadRtt);  // a late relapse: no doubling
  EXPECT_EQ(driver.controller.recover_time(), 1.0);
  const double streak_start = driver.now();
  EXPECT_NEAR(driver.run_until_good() - streak_start, 1.0, 1e-9);
}

TEST(BinaryCongestion, TimeSteppingBackCountsAsNoTime) {
  BinaryCongestionController controller;
  controller.update(10.0, kGoodRtt, 0.0);
  controller.update(5.0, kGoodRtt, 0.0);  // treated as 10.0
  controller.update(13.99, kGoodRtt, 0.0);
  EXPECT_EQ(controller.mode(), CongestionMode::kBad);
  controller.update(14.0, kGoodRtt, 0.0);
  EXPECT_EQ(controller.mode(), CongestionMode::kGood);
  controller.update(std::numeric_limits<double>::quiet_NaN(), kBadRtt, 0.0);  // ignored
  controller.update(std::numeric_limits<double>::infinity(), kBadRtt, 0.0);   // ignored
  EXPECT_EQ(controller.mode(), CongestionMode::kGood);
}

TEST(BinaryCongestion, AHugeTimeJumpIsBoundedWork) {
  BinaryCongestionConfig config;
  config.start_good = true;
  config.initial_recover_time = 60.0;
  BinaryCongestionController controller(config);
  controller.update(0.0, kGoodRtt, 0.0);
  controller.update(1e11, kGoodRtt, 0.0);  // 1e10 halving periods (times beyond kMaxTimeSeconds are ignored)
  EXPECT_EQ(controller.recover_time(), 1.0);
  controller.update(1e11 + 5.0, kBadRtt, 0.0);
  EXPECT_EQ(controller.mode(), CongestionMode::kBad);
  EXPECT_EQ(controller.recover_time(), 1.0);  // good mode lasted far longer than the relapse window
}

TEST(BinaryCongestion, ResetRestoresANewConnection) {
  Driver driver;
  driver.run_until_good();
  driver.run(1.0, kGoodRtt);
  driver.run(kTick, kBadRtt);
  ASSERT_EQ(driver.controller.recover_time(), 8.0);
  driver.controller.reset();
  EXPECT_EQ(driver.controller.mode(), CongestionMode::kBad);
  EXPECT_EQ(driver.controller.recover_time(), 4.0);
  EXPECT_EQ(driver.controller.drops(), 0u);
  // The clock restarts too: the next update is the first.
  driver.controller.update(500.0, kGoodRtt, 0.0);
  driver.controller.update(503.99, kGoodRtt, 0.0);
  EXPECT_EQ(driver.controller.mode(), CongestionMode::kBad);
  driver.controller.update(504.0, kGoodRtt, 0.0);
  EXPECT_EQ(driver.controller.mode(), CongestionMode::kGood);
}

// A stand-in for a smarter controller: proves a caller written against the interface needs no change.
class ProportionalController final : public CongestionController {
 public:
  using CongestionController::update;
  void update(double, const CongestionSignal& signal) override {
    rate_ = signal.rtt_ms > 0.0 ? std::min(60.0, 6000.0 / signal.rtt_ms) : 60.0;
  }
  double send_rate() const override { return rate_; }
  void reset() override { rate_ = 60.0; }

 private:
  double rate_ = 60.0;
};

// The caller: paces packets for `seconds` at whatever rate the controller publishes.
int packets_sent(CongestionController& controller, double rtt_ms, double seconds) {
  SendPacer pacer;
  int sent = 0;
  for (long tick = 0; tick < std::lround(seconds / kTick); ++tick) {
    const double now = static_cast<double>(tick) * kTick;
    controller.update(now, rtt_ms, 0.0);
    if (pacer.due(now, controller.send_rate())) ++sent;
  }
  return sent;
}

TEST(CongestionController, ControllersAreInterchangeableBehindTheInterface) {
  BinaryCongestionConfig config;
  config.start_good = true;
  BinaryCongestionController binary(config);
  ProportionalController proportional;
  EXPECT_NEAR(packets_sent(binary, kGoodRtt, 10.0), 300, 2);
  EXPECT_NEAR(packets_sent(proportional, kGoodRtt, 10.0), 600, 2);  // 6000 / 100 = 60 per second
  binary.reset();
  EXPECT_NEAR(packets_sent(binary, kBadRtt, 10.0), 100, 2);  // starts bad, stays bad
}

TEST(SendPacer, HoldsTheAverageRateAtTickGranularity) {
  for (double rate : {10.0, 30.0, 60.0, 100.0, 144.0}) {
    SendPacer pacer;
    int sent = 0;
    for (int ms = 0; ms < 10000; ++ms) sent += pacer.due(ms * 0.001, rate);  // 10 s polled every ms
    EXPECT_NEAR(sent, rate * 10.0, 1.0) << "rate " << rate;
  }
}

TEST(SendPacer, APauseDoesNotCauseABurst) {
  SendPacer pacer;
  for (int tick = 0; tick < 100; ++tick) pacer.due(tick * 0.01, 30.0);
  // Nothing polled for 5 s, then ticks resume: one packet now, then the normal spacing.
  int sent_in_first_tenth = 0;
  for (int tick = 600; tick < 610; ++tick) sent_in_first_tenth += pacer.due(tick * 0.01, 30.0);
  EXPECT_LE(sent_in_first_tenth, 3);
  EXPECT_GE(sent_in_first_tenth, 2);
}

// ---- Configs and times that cannot break it ----

// halving_period = 0 used to be asserted in debug builds; in release the halving loop's fmod made the
// anchor NaN, and good mode never halved again.
TEST(BinaryCongestion, HalvingPeriodZeroIsRefusedAndCannotPoisonTheAnchor) {
  BinaryCongestionConfig config;
  config.start_good = true;
  config.halving_period = 0.0;
  config.initial_recover_time = 8.0;
  EXPECT_FALSE(config.check().ok());
  BinaryCongestionController controller(config);
  ASSERT_NE(controller.error_reason(), nullptr);
  EXPECT_NE(std::string(controller.error_reason()).find("halving_period = 0"), std::string::npos);
  EXPECT_EQ(controller.config().halving_period, 0.001);
  for (int tick = 0; tick <= 640; ++tick) controller.update(tick * kTick, kGoodRtt, 0.0);
  EXPECT_EQ(controller.mode(), CongestionMode::kGood);
  EXPECT_EQ(controller.recover_time(), 1.0);  // halved down to the minimum, every value finite
  controller.update(10.5, kBadRtt, 0.0);
  EXPECT_EQ(controller.mode(), CongestionMode::kBad);
  EXPECT_TRUE(std::isfinite(controller.recover_time()));

  BinaryCongestionController good(BinaryCongestionConfig{});
  EXPECT_EQ(good.error_reason(), nullptr);
}

TEST(BinaryCongestion, NonFiniteAndOutOfRangeTimesAreIgnoredAndCounted) {
  BinaryCongestionController controller;
  controller.update(1.0, kGoodRtt, 0.0);
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity(), 1e300, -1e300}) {
    controller.update(bad, kGoodRtt, 0.0);
  }
  EXPECT_EQ(controller.time_invalid(), 5u);
  controller.update(0.5, kGoodRtt, 0.0);
  EXPECT_EQ(controller.time_backwards(), 1u);
  controller.update(4.99, kGoodRtt, 0.0);
  EXPECT_EQ(controller.mode(), CongestionMode::kBad);
  controller.update(5.0, kGoodRtt, 0.0);  // 4 s of good conditions since 1.0: the bad times moved nothing
  EXPECT_EQ(controller.mode(), CongestionMode::kGood);
}

// A zero or negative rate used to be asserted (debug) or return false for as long as it lasted; a tiny
// positive rate scheduled the next packet centuries ahead, and the pacer stayed frozen after the rate
// came back.
TEST(SendPacer, ZeroNegativeOrTinyRatesDoNotFreezeIt) {
  for (double bad : {0.0, -30.0, 1e-300, std::numeric_limits<double>::quiet_NaN(),
                     -std::numeric_limits<double>::infinity()}) {
    SendPacer pacer;
    int sent = 0;
    for (int tick = 0; tick < 64 * 30; ++tick) sent += pacer.due(tick * kTick, bad);  // 30 s
    EXPECT_GE(sent, 3) << "rate " << bad << ": at least kMinSendRate";
    EXPECT_LE(sent, 4) << "rate " << bad;
    EXPECT_EQ(pacer.rates_clamped(), 64u * 30u);
    // The rate comes back: sending resumes at once, not after the slow schedule.
    int resumed = 0;
    for (int tick = 64 * 30; tick < 64 * 31; ++tick) resumed += pacer.due(tick * kTick, 30.0);
    EXPECT_NEAR(resumed, 30, 1) << "rate " << bad;
  }
}

TEST(SendPacer, HugeRatesAreClampedNotABurstForever) {
  SendPacer pacer;
  int sent = 0;
  for (int tick = 0; tick < 64; ++tick)
    sent += pacer.due(tick * kTick, std::numeric_limits<double>::infinity());
  EXPECT_EQ(sent, 64);  // at most one per call
  EXPECT_EQ(pacer.rates_clamped(), 64u);
}

TEST(SendPacer, BadTimesAreIgnoredOrClamped) {
  SendPacer pacer;
  EXPECT_TRUE(pacer.due(1.0, 10.0));
  EXPECT_FALSE(pacer.due(std::numeric_limits<double>::quiet_NaN(), 10.0));
  EXPECT_FALSE(pacer.due(std::numeric_limits<double>::infinity(), 10.0));
  EXPECT_FALSE(pacer.due(0.5, 10.0));  // a step back: no time passed
  EXPECT_EQ(pacer.time_invalid(), 2u);
  EXPECT_EQ(pacer.time_backwards(), 1u);
  EXPECT_FALSE(pacer.due(1.09, 10.0));
  EXPECT_TRUE(pacer.due(1.1, 10.0));
}

}  // namespace
}  // namespace bitwire
