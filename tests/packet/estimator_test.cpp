// Accuracy of the endpoint's network estimates, measured through the simulator:
// - at a fixed 100 ms round trip the smoothed RTT is within one tick + 10% of it (the tick: an ack can
//   only leave and arrive on a tick, so a sample may read up to a tick long on each leg);
// - at 10, 25 and 50% loss the loss estimate, averaged over 60 simulated seconds, is within 2 points;
// - over a table of send rates (10..120 Hz, each side its own), loss (0..50%) and jitter (0..50 ms), the
//   RTT is within 10% and the jitter within 5 ms of the simulator's truth (RttAndJitterMatchTheSimulator).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bitwire/sim/link.hpp"
#include "bitwire/sim/simulator.hpp"
#include "support/seed.hpp"
#include "support/session.hpp"
#include "support/bytes.hpp"

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
    // No sample is shorter than the network's round trip, but for the rounding of the ack delay the peer
    // reports (to whole milliseconds below 128 ms: at most half a millisecond).
    EXPECT_GE(run.rtt_min, 100.0 - 0.5 - 1e-3) << hz << " Hz";
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

// ---- RTT and jitter against the simulator's truth ------------------------------------------------------
//
// Two endpoints, each with its own tick rate, joined by one NetworkSimulator per direction. Each side
// runs the usual game loop on its own tick: update(now), receive every datagram the network has delivered
// by now, send one packet. So a datagram waits in the "socket" until the receiver's next tick, and an ack
// waits for the receiver's next send: the loop whose RTT read +100% at 10 Hz. The transport gives each
// datagram's arrival time to receive_packet (as a socket with receive timestamps, or a receive thread,
// does), and the endpoints use their defaults, so the ack delay extension is on (envelope on).
//
// Truth, from the simulator's parameters (latency L, jitter J <= L, uniform in [-J, +J] per datagram,
// never clamped at zero because J <= L):
// - RTT = the sum of both directions' mean one-way latency = 2 L;
// - jitter = the mean absolute deviation of one RTT sample (the two one-way delays) around its mean.
//   The sum of two independent U(-J, J) is triangular on [-2J, 2J], whose mean absolute deviation is
//   2J/3. So jitter truth = 2 J / 3 (0 on a jitter-free link).
// The estimate compared is the reading averaged over the measured part of the run (after 10 s), at every
// tick of the side that reads it: a single reading of a smoothed value also carries its smoothing noise.

struct AccuracyCase {
  double a_hz, b_hz;  // send (and tick) rates of A and B
  double latency_ms;  // one way, both directions
  double loss_percent;
  double jitter_ms;
};

struct AccuracyResult {
  double rtt[2] = {0, 0};     // averaged rtt_ms() of A, B
  double jitter[2] = {0, 0};  // averaged jitter_ms() of A, B
  double loss[2] = {0, 0};    // averaged packet_loss_percent() of A, B
};

class TwoRateLoop {
 public:
  TwoRateLoop(const AccuracyCase& c, uint64_t seed, bool arrival_times = true) : arrival_times_(arrival_times) {
    NetworkSimulatorConfig sim;
    sim.conditions.latency_ms = c.latency_ms;
    sim.conditions.jitter_ms = c.jitter_ms;
    sim.conditions.loss_percent = c.loss_percent;
    sim.seed = seed;
    to_[0] = std::make_unique<NetworkSimulator>(sim);  // into A
    sim.seed = seed ^ 0x9E3779B97F4A7C15ull;
    to_[1] = std::make_unique<NetworkSimulator>(sim);  // into B
    hz_[0] = c.a_hz;
    hz_[1] = c.b_hz;
    EndpointConfig config;
    for (int i = 0; i < 2; ++i) {
      ports_[i] = Port{this, i};
      endpoints_[i] = std::make_unique<Endpoint>(
          config, EndpointCallbacks{&ports_[i], &TwoRateLoop::transmit, &TwoRateLoop::process, nullptr}, 0.0);
    }
  }

  AccuracyResult run(double seconds, double measure_from) {
    AccuracyResult result;
    long readings[2] = {0, 0};
    // B's ticks are offset by a fraction of its interval so that the two loops are not in phase.
    long next_tick[2] = {0, 0};
    const double phase[2] = {0.0, 0.37 / hz_[1]};
    for (;;) {
      const double t0 = phase[0] + static_cast<double>(next_tick[0]) / hz_[0];
      const double t1 = phase[1] + static_cast<double>(next_tick[1]) / hz_[1];
      const int side = t0 <= t1 ? 0 : 1;
      const double now = side == 0 ? t0 : t1;
      if (now > seconds) break;
      ++next_tick[side];
      Endpoint& endpoint = *endpoints_[side];
      endpoint.update(now);
      now_ = now;
      to_[side]->deliver(now, [&](std::span<const std::byte> bytes, double arrival) {
        if (arrival_times_) {
          endpoint.receive_packet(bytes, arrival);
        } else {
          endpoint.receive_packet(bytes);
        }
      });
      endpoint.send_packet(bitwire::test::view(payload_));
      endpoint.clear_acks();
      if (now >= measure_from) {
        result.rtt[side] += endpoint.rtt_ms();
        result.jitter[side] += endpoint.jitter_ms();
        result.loss[side] += endpoint.packet_loss_percent();
        ++readings[side];
      }
    }
    for (int i = 0; i < 2; ++i) {
      result.rtt[i] /= static_cast<double>(std::max(readings[i], 1L));
      result.jitter[i] /= static_cast<double>(std::max(readings[i], 1L));
      result.loss[i] /= static_cast<double>(std::max(readings[i], 1L));
    }
    return result;
  }

 private:
  struct Port {
    TwoRateLoop* loop = nullptr;
    int side = 0;
  };
  static void transmit(void* context, uint16_t, std::span<const std::byte> datagram) {
    Port& port = *static_cast<Port*>(context);
    port.loop->to_[1 - port.side]->send(port.loop->now_, datagram);
  }
  static bool process(void*, uint16_t, std::span<const std::byte>) { return true; }

  std::unique_ptr<NetworkSimulator> to_[2];
  std::unique_ptr<Endpoint> endpoints_[2];
  Port ports_[2];
  double hz_[2] = {60, 60};
  double now_ = 0.0;
  bool arrival_times_ = true;
  uint8_t payload_[40] = {};
};

TEST(Estimator, RttAndJitterMatchTheSimulator) {
  BITWIRE_SEEDED_TEST_SEED(0xacc);
  const AccuracyCase cases[] = {
      // a Hz, b Hz, one-way ms, loss %, jitter ms
      {10, 10, 50, 0, 0},   {10, 10, 100, 0, 0},  {10, 10, 50, 50, 0},   {10, 10, 50, 0, 50},
      {10, 10, 50, 50, 50}, {30, 30, 50, 0, 0},   {60, 60, 50, 25, 25},  {60, 60, 100, 0, 0},
      {120, 120, 50, 0, 0}, {120, 120, 50, 50, 50}, {10, 120, 50, 0, 0}, {120, 10, 50, 25, 25},
      {60, 20, 100, 10, 10}, {20, 60, 50, 50, 50}, {120, 10, 100, 50, 0},
  };
  std::printf("%5s %5s %6s %5s %6s | %8s %7s %7s | %8s %6s %6s | %6s %6s | %8s\n", "A Hz", "B Hz", "lat", "loss",
              "jitter", "rtt true", "rtt A", "rtt B", "jit true", "jit A", "jit B", "loss A", "loss B",
              "rtt A*");
  int failed = 0;
  for (const AccuracyCase& c : cases) {
    TwoRateLoop loop(c, seed);
    // 10 s to settle, then at least 6000 ticks of the slower side measured.
    const AccuracyResult r = loop.run(10.0 + 6000.0 / std::min(c.a_hz, c.b_hz), 10.0);
    const double rtt_truth = 2.0 * c.latency_ms;
    const double jitter_truth = 2.0 * c.jitter_ms / 3.0;
    bool ok = true;
    for (int i = 0; i < 2; ++i) {
      ok = ok && std::fabs(r.rtt[i] - rtt_truth) <= 0.1 * rtt_truth;
      ok = ok && std::fabs(r.jitter[i] - jitter_truth) <= 5.0;
    }
    // For comparison (not checked): the same loop without arrival times, where the wait for the tick
    // at each end is part of every sample.
    TwoRateLoop polled(c, seed, false);
    const AccuracyResult p = polled.run(10.0 + 6000.0 / std::min(c.a_hz, c.b_hz), 10.0);
    std::printf("%5.0f %5.0f %6.0f %5.0f %6.0f | %8.1f %7.1f %7.1f | %8.1f %6.1f %6.1f | %6.1f %6.1f | %8.1f %s\n",
                c.a_hz, c.b_hz, c.latency_ms, c.loss_percent, c.jitter_ms, rtt_truth, r.rtt[0], r.rtt[1],
                jitter_truth, r.jitter[0], r.jitter[1], r.loss[0], r.loss[1], p.rtt[0], ok ? "" : "<- outside");
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR(r.rtt[i], rtt_truth, 0.1 * rtt_truth)
          << (i == 0 ? "A" : "B") << " at " << c.a_hz << "/" << c.b_hz << " Hz, loss " << c.loss_percent
          << "%, jitter " << c.jitter_ms << " ms";
      EXPECT_NEAR(r.jitter[i], jitter_truth, 5.0)
          << (i == 0 ? "A" : "B") << " at " << c.a_hz << "/" << c.b_hz << " Hz, loss " << c.loss_percent
          << "%, jitter " << c.jitter_ms << " ms";
    }
    failed += ok ? 0 : 1;
  }
  std::printf("%d of %zu cases outside (RTT 10%%, jitter 5 ms)\n", failed, std::size(cases));
}

}  // namespace
}  // namespace bitwire
