// Accuracy of the endpoint's network estimates, measured through the simulator:
// - at a fixed 100 ms round trip the smoothed RTT is within one tick + 10% of it (the tick: an ack can
//   only leave and arrive on a tick, so a sample may read up to a tick long on each leg);
// - at 10, 25 and 50% loss the loss estimate, averaged over 60 simulated seconds, is within 2 points.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "bitwire/link.hpp"
#include "support/seed.hpp"
#include "support/session.hpp"

namespace bitwire {
namespace {

using test::Session;
using test::SessionOptions;

struct RttRun {
  double smoothed_min = 1e9, smoothed_max = 0.0;  // over the measured part of the run
  double rtt_min = 0.0, rtt_max = 0.0, rtt_avg = 0.0;
};

RttRun run_fixed_rtt(double tick_seconds, double one_way_ms, uint64_t seed) {
  NetworkConditions conditions;
  conditions.latency_ms = one_way_ms;
  SessionOptions options;
  options.link = LinkConfig::symmetric(conditions, seed);
  options.seed = seed;
  auto session = std::make_unique<Session>(options);
  RttRun run;
  const long ticks = std::lround(20.0 / tick_seconds);
  for (long tick = 0; tick < ticks; ++tick) {
    const double now = static_cast<double>(tick) * tick_seconds;
    session->advance(now);
    session->send(LinkSide::kA, 100);
    session->send(LinkSide::kB, 100);
    if (now >= 5.0) {  // after the smoothing has settled
      const double rtt = session->endpoint(LinkSide::kA).rtt_ms();
      run.smoothed_min = std::min(run.smoothed_min, rtt);
      run.smoothed_max = std::max(run.smoothed_max, rtt);
    }
  }
  const Endpoint& a = session->endpoint(LinkSide::kA);
  run.rtt_min = a.rtt_min_ms();
  run.rtt_max = a.rtt_max_ms();
  run.rtt_avg = a.rtt_avg_ms();
  EXPECT_EQ(session->violations(), 0u) << session->report();
  return run;
}

TEST(Estimator, SmoothedRttAtAFixed100MsIsWithinOneTickAndTenPercent) {
  BITWIRE_SEEDED_TEST_SEED(0xe57);
  for (const double hz : {30.0, 60.0, 64.0, 100.0, 128.0}) {
    const double tick_ms = 1000.0 / hz;
    const RttRun run = run_fixed_rtt(1.0 / hz, 50.0, seed);
    std::printf("rtt at %.0f Hz: smoothed %.2f .. %.2f ms; window min %.2f avg %.2f max %.2f ms\n", hz,
                run.smoothed_min, run.smoothed_max, run.rtt_min, run.rtt_avg, run.rtt_max);
    const double tolerance = tick_ms + 10.0;
    EXPECT_NEAR(run.smoothed_min, 100.0, tolerance) << hz << " Hz";
    EXPECT_NEAR(run.smoothed_max, 100.0, tolerance) << hz << " Hz";
    // No sample is shorter than the network's round trip.
    EXPECT_GE(run.rtt_min, 100.0 - 1e-3) << hz << " Hz";
    EXPECT_NEAR(run.rtt_avg, 100.0, tolerance) << hz << " Hz";
  }
}

struct LossRun {
  double average_estimate = 0.0;  // packet_loss_percent() averaged over every tick of the measured minute
  double realized = 0.0;          // what the simulator actually dropped of A's datagrams in that minute
};

LossRun run_loss(double loss_percent, uint64_t seed) {
  NetworkConditions conditions;
  conditions.latency_ms = 50.0;
  conditions.loss_percent = loss_percent;  // both ways: acks are lost too, and must not matter
  SessionOptions options;
  options.link = LinkConfig::symmetric(conditions, seed);
  options.seed = seed;
  auto session = std::make_unique<Session>(options);
  constexpr double kTick = 0.01;
  constexpr int kPerTick = 4;  // 400 packets per second each way: 24,000 judged in the minute
  double sum = 0.0;
  long samples = 0;
  uint64_t sent_before = 0, lost_before = 0;
  for (long tick = 0; tick < 6500; ++tick) {  // 5 s to fill the loss window, then 60 s measured
    const double now = static_cast<double>(tick) * kTick;
    if (tick == 500) {
      sent_before = session->link().leaving(LinkSide::kA).stats().sent;
      lost_before = session->link().leaving(LinkSide::kA).stats().lost;
    }
    session->advance(now);
    for (int i = 0; i < kPerTick; ++i) {
      session->send(LinkSide::kA, 64);
      session->send(LinkSide::kB, 64);
    }
    if (tick >= 500) {
      sum += session->endpoint(LinkSide::kA).packet_loss_percent();
      ++samples;
    }
  }
  const auto& stats = session->link().leaving(LinkSide::kA).stats();
  LossRun run;
  run.average_estimate = sum / static_cast<double>(samples);
  run.realized =
      100.0 * static_cast<double>(stats.lost - lost_before) / static_cast<double>(stats.sent - sent_before);
  EXPECT_EQ(session->violations(), 0u) << session->report();
  return run;
}

TEST(Estimator, LossEstimateAveragedOverAMinuteIsWithinTwoPoints) {
  BITWIRE_SEEDED_TEST_SEED(0x1055);
  for (const double loss : {10.0, 25.0, 50.0}) {
    const LossRun run = run_loss(loss, seed);
    std::printf("loss %.0f%%: estimate averaged over 60 s %.2f%%, realized %.2f%%\n", loss,
                run.average_estimate, run.realized);
    EXPECT_NEAR(run.average_estimate, loss, 2.0) << "configured loss " << loss;
    // The estimator tracks the loss that actually happened, closer still.
    EXPECT_NEAR(run.average_estimate, run.realized, 1.0) << "configured loss " << loss;
  }
}

TEST(Estimator, NoLossReadsZero) {
  BITWIRE_SEEDED_TEST_SEED(0x1056);
  const LossRun run = run_loss(0.0, seed);
  EXPECT_EQ(run.average_estimate, 0.0);
}

}  // namespace
}  // namespace bitwire
