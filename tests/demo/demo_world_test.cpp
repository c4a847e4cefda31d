// The demo's world (examples/demo/world.hpp): every moving entity advances by the velocity it sends, at a
// speed an action game's entity of its kind moves, and the world is the same whenever it is rebuilt (the
// demo's clients check every decoded snapshot against a rebuilt one).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "bitwire/serialize/stream.hpp"
#include "world.hpp"

namespace {

using game::EntityKind;

double horizontal_speed(const common::Velocity& v) {
  return std::hypot(v.x, v.z);
}

// Two minutes of ticks at `rate` Hz: per axis, the step from one tick to the next is the mean of the two
// velocities sent times the tick length, within the rounding of two positions to 1/8 m (0.125) plus what a
// velocity change within the tick moves (at most 8 m/s x tick / 2: players stop and start, nothing else
// changes velocity in a step). A projectile fired again jumps back to its launcher: a new flight.
void expect_positions_follow_velocities(double rate) {
  const double dt = 1.0 / rate;
  const double tolerance = 0.125 + 8.0 * dt / 2 + 1e-6;
  game::Snapshot before, after;
  demo::fill_world(before, 0, dt);
  int moving_steps = 0;
  for (uint32_t tick = 1; tick <= static_cast<uint32_t>(120 * rate); ++tick) {
    demo::fill_world(after, tick, dt);
    ASSERT_EQ(after.entities.size(), 64u);
    for (size_t i = 0; i < 64; ++i) {
      const game::EntityState& a = before.entities[i];
      const game::EntityState& b = after.entities[i];
      const uint32_t id = static_cast<uint32_t>(i);
      if (b.kind == EntityKind::Projectile &&
          demo::projectile_flight(id, tick, dt) != demo::projectile_flight(id, tick - 1, dt)) {
        continue;
      }
      const double expected[3] = {(a.velocity.x + b.velocity.x) * dt / 2,
                                  (a.velocity.y + b.velocity.y) * dt / 2,
                                  (a.velocity.z + b.velocity.z) * dt / 2};
      const double moved[3] = {b.position.x - a.position.x, b.position.y - a.position.y,
                               b.position.z - a.position.z};
      for (int axis = 0; axis < 3; ++axis) {
        ASSERT_NEAR(moved[axis], expected[axis], tolerance)
            << "entity " << i << " axis " << axis << " tick " << tick << " at " << rate << " Hz";
      }
      moving_steps += b.at_rest ? 0 : 1;
    }
    before = after;
  }
  EXPECT_GT(moving_steps, 0);
}

TEST(DemoWorld, PositionsAdvanceByTheVelocitySent) {
  expect_positions_follow_velocities(60.0);
  expect_positions_follow_velocities(20.0);
}

TEST(DemoWorld, SpeedsAreAnActionGamesByKind) {
  const double dt = 1.0 / 60.0;
  game::Snapshot s;
  int moving[4] = {}, resting[4] = {};
  for (uint32_t tick = 0; tick < 120 * 60; ++tick) {
    demo::fill_world(s, tick, dt);
    int at_rest = 0;
    for (const game::EntityState& e : s.entities) {
      const int kind = static_cast<int>(e.kind);
      at_rest += e.at_rest ? 1 : 0;
      (e.at_rest ? resting : moving)[kind] += 1;
      if (e.at_rest) continue;
      const double speed = horizontal_speed(e.velocity);
      if (e.kind == EntityKind::Player) {
        EXPECT_GE(speed, 5.9) << int(e.id);
        EXPECT_LE(speed, 8.1) << int(e.id);
        EXPECT_EQ(e.velocity.y, 0.0f);
      } else if (e.kind == EntityKind::Vehicle) {
        EXPECT_GE(speed, 19.9) << int(e.id);
        EXPECT_LE(speed, 28.1) << int(e.id);
      } else if (e.kind == EntityKind::Projectile) {
        EXPECT_GE(speed, 14.9) << int(e.id);
        EXPECT_LE(std::hypot(speed, double(e.velocity.y)), 30.1) << int(e.id);
      }
    }
    // Some entities are at rest (every pickup, the parked vehicles, players at their stops), most are not.
    EXPECT_GE(at_rest, 16);
    EXPECT_LE(at_rest, 32);
  }
  EXPECT_EQ(moving[static_cast<int>(EntityKind::Pickup)], 0);
  EXPECT_GT(moving[static_cast<int>(EntityKind::Player)], 0);
  EXPECT_GT(resting[static_cast<int>(EntityKind::Player)], 0);
  EXPECT_GT(moving[static_cast<int>(EntityKind::Vehicle)], 0);
  EXPECT_GT(resting[static_cast<int>(EntityKind::Vehicle)], 0);
  EXPECT_EQ(resting[static_cast<int>(EntityKind::Projectile)], 0);
}

TEST(DemoWorld, ProjectilesAreFiredAgainOnlyWhenTheirFlightEnds) {
  const double dt = 1.0 / 60.0;
  for (uint32_t id = 1; id < 64; id += 4) {
    int flights = 0;
    for (uint32_t tick = 1; tick <= 60 * 60; ++tick) {
      flights += demo::projectile_flight(id, tick, dt) != demo::projectile_flight(id, tick - 1, dt) ? 1 : 0;
    }
    // Flights last 1.4 s (grenades) to 2.5 s (rockets): a minute holds 24 to 43 of them.
    EXPECT_GE(flights, 23) << id;
    EXPECT_LE(flights, 43) << id;
  }
}

TEST(DemoWorld, TheSameTickIsTheSameWorld) {
  game::Snapshot a, b;
  for (uint32_t tick : {0u, 1u, 59u, 3600u, 215999u}) {
    demo::fill_world(a, tick, 1.0 / 60.0);
    demo::fill_world(b, tick, 1.0 / 60.0);
    EXPECT_TRUE(a == b) << tick;
  }
  demo::fill_world(b, 1, 1.0 / 60.0);
  demo::fill_world(a, 2, 1.0 / 60.0);
  EXPECT_FALSE(a == b);
}

size_t whole_bits(const game::Snapshot& snapshot) {
  bitwire::MeasureStream measure;
  game::Snapshot copy = snapshot;
  EXPECT_TRUE(copy.serialize(measure));
  return measure.bits_processed();
}

size_t delta_bits(const game::Snapshot& snapshot, const game::Snapshot& baseline) {
  bitwire::MeasureStream measure;
  EXPECT_TRUE(snapshot.serialize_delta(measure, baseline));
  return measure.bits_processed();
}

// The Snapshot the demo sends, whole and as a delta against a baseline 13 ticks older (the newest one a
// client has acked at the demo's default 60 Hz and about 220 ms RTT), averaged over a minute of ticks
// (every 7th from tick 600). docs/delta.md and bench/RESULTS.md quote these figures.
TEST(DemoWorld, ADeltaAgainstABaseline13TicksOldIsAQuarterOfTheWhole) {
  const double dt = 1.0 / 60.0;
  size_t whole = 0, delta = 0, snapshots = 0;
  game::Snapshot now, baseline;
  for (uint32_t tick = 600; tick < 600 + 60 * 60; tick += 7) {
    now.tick = now.last_input_tick = tick;
    baseline.tick = baseline.last_input_tick = tick - 13;
    demo::fill_world(now, tick, dt);
    demo::fill_world(baseline, tick - 13, dt);
    whole += whole_bits(now);
    delta += delta_bits(now, baseline);
    ++snapshots;
  }
  const double w = static_cast<double>(whole) / static_cast<double>(snapshots);
  const double d = static_cast<double>(delta) / static_cast<double>(snapshots);
  std::printf("whole %.0f bits, delta %.0f bits (%.2fx), %.1f bits an entity\n", w, d, w / d, d / 64);
  EXPECT_EQ(std::lround(w), 7443);
  EXPECT_EQ(std::lround(d), 1887);
}

}  // namespace
