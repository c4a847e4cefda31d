// Congestion avoidance on a real (simulated) link: endpoint A sends 256-byte packets at the rate its
// BinaryCongestionController publishes, through a link whose bandwidth cap comes and goes; B answers at a
// steady 30 per second so A hears acks. At 30 packets per second A needs about 65 kbps, at 10 about 22.
//
//   0 s    open link             the controller earns good mode after its initial 4 s
//   20 s   cap 16 kbps           below even the low rate: the queue fills, RTT soars -> bad, and it stays bad
//   60 s   cap removed           the queue drains, conditions turn good -> good after the recover time
//   120 s  cap 40 kbps           between the rates: every return to 30/s floods it again within seconds,
//                                so each relapse doubles the recover time, up to 60 s
//   220 s  cap removed           good again after the (long) recover time, which then halves every 10 s
//
// Every mode change is checked against the article's rules, replayed from what the controller was told.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "bitwire/packet/congestion.hpp"
#include "bitwire/sim/link.hpp"
#include "support/seed.hpp"
#include "support/session.hpp"

namespace bitwire {
namespace {

using test::Session;
using test::SessionOptions;

constexpr double kTick = 1.0 / 64.0;  // exact in binary: tick times and durations compare exactly

struct Sample {
  double time;
  bool good_conditions;  // what the controller was told, judged by its thresholds
  CongestionMode mode;   // after the update
  double recover_time;   // after the update
  double rate;
  uint64_t sent_total;  // packets A had sent before this tick
};

struct Phase {
  double start;
  double bandwidth_kbps;  // 0 = open
};

class CongestionLink : public ::testing::Test {
 protected:
  void run(uint64_t seed, const std::vector<Phase>& phases, double end) {
    NetworkConditions conditions;
    conditions.latency_ms = 50.0;
    conditions.queue_bytes = 4000;  // a router queue: at 16 kbps it holds 2 s
    SessionOptions options;
    options.link = LinkConfig::symmetric(conditions, seed);
    options.seed = seed;
    session_ = std::make_unique<Session>(options);
    SendPacer a_pacer, b_pacer;
    size_t next_phase = 0;
    const long ticks = std::lround(end / kTick);
    for (long tick = 0; tick < ticks; ++tick) {
      const double now = static_cast<double>(tick) * kTick;
      if (next_phase < phases.size() && now >= phases[next_phase].start) {
        NetworkConditions forward = conditions;
        forward.bandwidth_kbps = phases[next_phase].bandwidth_kbps;
        session_->link().leaving(LinkSide::kA).set_conditions(forward);
        ++next_phase;
      }
      session_->advance(now);
      const Endpoint& a = session_->endpoint(LinkSide::kA);
      const CongestionSignal signal{a.rtt_ms(), a.packet_loss_percent(), a.jitter_ms()};
      controller_.update(now, signal);
      const auto& config = controller_.config();
      samples_.push_back({now,
                          signal.rtt_ms <= config.rtt_threshold_ms &&
                              signal.packet_loss_percent <= config.loss_threshold_percent,
                          controller_.mode(), controller_.recover_time(), controller_.send_rate(),
                          session_->ledger(LinkSide::kA).sent});
      if (a_pacer.due(now, controller_.send_rate())) session_->send(LinkSide::kA, 256);
      if (b_pacer.due(now, 30.0)) session_->send(LinkSide::kB, 32);
    }
    EXPECT_EQ(session_->violations(), 0u) << session_->report();
  }

  // Times the controller switched to `mode` within [from, to).
  std::vector<double> switches(CongestionMode mode, double from, double to) const {
    std::vector<double> times;
    for (size_t i = 1; i < samples_.size(); ++i) {
      if (samples_[i].time >= from && samples_[i].time < to && samples_[i].mode == mode &&
          samples_[i - 1].mode != mode) {
        times.push_back(samples_[i].time);
      }
    }
    return times;
  }
  bool bad_throughout(double from, double to) const {
    for (const Sample& s : samples_) {
      if (s.time >= from && s.time < to && (s.mode != CongestionMode::kBad || s.rate != 10.0)) return false;
    }
    return true;
  }
  const Sample& at(double time) const { return samples_[static_cast<size_t>(std::lround(time / kTick))]; }

  // Replays the article's rules over the recorded run and checks every mode change against them:
  // bad -> good exactly when conditions have been good for the recover time; good -> bad on the first
  // bad conditions; the recover time doubling on a relapse within 10 s (max 60) and halving per 10 s of
  // good mode (min 1).
  void check_against_the_article() const {
    double good_since = -1.0;  // start of the current good streak while bad
    double mode_entered = 0.0;
    double recover = 4.0;
    double halving_anchor = 0.0;
    CongestionMode mode = CongestionMode::kBad;
    int changes = 0;
    for (const Sample& s : samples_) {
      if (mode == CongestionMode::kGood) {
        while (s.time - halving_anchor >= 10.0) {
          halving_anchor += 10.0;
          recover = std::max(recover / 2.0, 1.0);
        }
        if (!s.good_conditions) {
          if (s.time - mode_entered < 10.0) recover = std::min(recover * 2.0, 60.0);
          mode = CongestionMode::kBad;
          mode_entered = s.time;
          good_since = -1.0;
          ++changes;
        }
      } else if (!s.good_conditions) {
        good_since = -1.0;
      } else {
        if (good_since < 0.0) good_since = s.time;
        if (s.time - good_since >= recover) {
          mode = CongestionMode::kGood;
          mode_entered = halving_anchor = s.time;
          ++changes;
        }
      }
      ASSERT_EQ(s.mode, mode) << "at " << s.time << " s";
      ASSERT_EQ(s.recover_time, recover) << "at " << s.time << " s";
    }
    EXPECT_GT(changes, 5);
  }

  void print_timeline() const {
    for (size_t i = 1; i < samples_.size(); ++i) {
      if (samples_[i].mode != samples_[i - 1].mode) {
        std::printf("%8.3f s  %s  recover time %.3f s\n", samples_[i].time,
                    samples_[i].mode == CongestionMode::kGood ? "good (30/s)" : "bad  (10/s)",
                    samples_[i].recover_time);
      }
    }
  }

  BinaryCongestionController controller_;
  std::unique_ptr<Session> session_;
  std::vector<Sample> samples_;
};

TEST_F(CongestionLink, DropsWhileCongestedAndRecoversWithTheArticlesTimings) {
  BITWIRE_SEEDED_TEST_SEED(0xc0c0);
  run(seed, {{0.0, 0.0}, {20.0, 16.0}, {60.0, 0.0}, {120.0, 40.0}, {220.0, 0.0}}, 320.0);
  print_timeline();
  check_against_the_article();

  // Open link: good after exactly the initial 4 s, and it stays good.
  EXPECT_EQ(switches(CongestionMode::kGood, 0.0, 20.0), std::vector<double>{4.0});
  EXPECT_TRUE(switches(CongestionMode::kBad, 0.0, 20.0).empty());

  // Capped below the low rate: drops within 2 s of the cap and stays at 10/s until the cap goes.
  const auto drops = switches(CongestionMode::kBad, 20.0, 60.0);
  ASSERT_EQ(drops.size(), 1u);
  EXPECT_LT(drops[0], 22.0);
  EXPECT_TRUE(bad_throughout(drops[0], 60.0));

  // Open again: back to 30/s, once, within the queue's drain + the estimators' memory + the recover time.
  const auto recoveries = switches(CongestionMode::kGood, 60.0, 120.0);
  ASSERT_EQ(recoveries.size(), 1u);
  EXPECT_LT(recoveries[0], 60.0 + 10.0);  // measured: 7.2 s (2 s of queue, RTT smoothing, 2 s recover time)
  EXPECT_TRUE(switches(CongestionMode::kBad, recoveries[0], 120.0).empty());

  // Capped between the rates: relapses come quickly, so the recover time doubles each time up to 60 s.
  const auto relapses = switches(CongestionMode::kBad, 120.0, 220.0);
  ASSERT_GE(relapses.size(), 3u);
  for (size_t i = 1; i < relapses.size(); ++i) {
    EXPECT_EQ(at(relapses[i]).recover_time, std::min(2.0 * at(relapses[i - 1]).recover_time, 60.0));
  }
  EXPECT_EQ(at(219.0).recover_time, 60.0);

  // Open for good: it returns after the recover time and the recover time then halves every 10 s.
  const auto final_recovery = switches(CongestionMode::kGood, 220.0, 320.0);
  ASSERT_EQ(final_recovery.size(), 1u);
  EXPECT_TRUE(switches(CongestionMode::kBad, final_recovery[0], 320.0).empty());
  EXPECT_EQ(at(final_recovery[0] + 10.0).recover_time, 30.0);
  EXPECT_EQ(at(final_recovery[0] + 20.0).recover_time, 15.0);
  EXPECT_EQ(at(319.0).mode, CongestionMode::kGood);
}

TEST_F(CongestionLink, ThePacketsActuallySentFollowTheRate) {
  BITWIRE_SEEDED_TEST_SEED(0xc0c1);
  run(seed, {{0.0, 0.0}, {30.0, 16.0}}, 60.0);
  ASSERT_TRUE(switches(CongestionMode::kBad, 0.0, 30.0).empty());
  ASSERT_TRUE(bad_throughout(35.0, 60.0));
  auto sent_between = [&](double from, double to) { return at(to).sent_total - at(from).sent_total; };
  EXPECT_NEAR(static_cast<double>(sent_between(10.0, 20.0)), 300.0, 1.0);  // 30 per second
  EXPECT_NEAR(static_cast<double>(sent_between(35.0, 55.0)), 200.0, 1.0);  // 10 per second
}

}  // namespace
}  // namespace bitwire
