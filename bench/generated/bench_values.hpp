// The values every generated-code benchmark sends, drawn once from fixed seeds so that each run (and
// each compiler) encodes the same bytes: 256 distinct PlayerInputs, 8 distinct 64-entity Snapshots of a
// busy match, and 256 distinct ShipStates and FleetPackets. Floats are snapped to their quanta (written and
// read back once), so a read reproduces the values exactly and the benchmarks can check that it did.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "game.hpp"
#include "ship.hpp"

namespace bench_values {

inline constexpr size_t kVariants = 256;

// Rewrites `message` as a reader would see it: every compressed float becomes its quantum. A drawn value
// that breaks a write contract (write_object writes nothing) or does not read back is a broken bench
// setup, not a figure: it stops the run with the reason rather than timing values the code never sends.
template <typename T>
void snap_to_wire(T& message) {
  std::vector<std::byte> buffer(T::MaxBytes + 8);
  if (bitwire::write_object(buffer, message) == 0) {
    const bitwire::ValidateResult check = bitwire::validate_object(message);
    std::fprintf(stderr, "bench setup: a drawn value breaks a write contract (%s at bit %zu): write_object wrote 0 bytes\n",
                 bitwire::to_string(check.error), check.error_bit);
    std::abort();
  }
  T copy{};
  if (const bitwire::ReadResult read = bitwire::read_object(std::span<const std::byte>(buffer), copy); !read) {
    std::fprintf(stderr, "bench setup: a drawn value does not read back (%s at bit %zu)\n",
                 bitwire::to_string(read.error), read.error_bit);
    std::abort();
  }
  message = copy;
}

inline float uniform(bitwire::Random& rng, double low, double high) {
  return static_cast<float>(rng.uniform(low, high));
}

// A random unit quaternion in the schema's smallest-three form: the largest component's index, and the
// other three (each in [-1/sqrt(2), 1/sqrt(2)] once the largest is made positive) scaled to [-511, 511].
inline common::Orientation random_orientation(bitwire::Random& rng) {
  double q[4];
  double norm = 0;
  do {
    norm = 0;
    for (double& c : q) {
      c = rng.uniform(-1.0, 1.0);
      norm += c * c;
    }
  } while (norm < 1e-6);
  norm = std::sqrt(norm);
  int largest = 0;
  for (int i = 0; i < 4; ++i) {
    q[i] /= norm;
    if (std::fabs(q[i]) > std::fabs(q[largest])) largest = i;
  }
  const double sign = q[largest] < 0 ? -1.0 : 1.0;
  int16_t small[3];
  int n = 0;
  for (int i = 0; i < 4; ++i) {
    if (i == largest) continue;
    const double scaled = std::round(sign * q[i] * std::sqrt(2.0) * 511.0);
    small[n++] = static_cast<int16_t>(std::fmax(-511.0, std::fmin(511.0, scaled)));
  }
  common::Orientation orientation;
  orientation.largest = static_cast<uint8_t>(largest);
  orientation.a = small[0];
  orientation.b = small[1];
  orientation.c = small[2];
  return orientation;
}

inline std::vector<game::PlayerInput> player_inputs() {
  bitwire::Random rng(0x1a7e'0001);
  std::vector<game::PlayerInput> inputs(kVariants);
  uint32_t tick = 180'000;
  for (game::PlayerInput& input : inputs) {
    input.tick = tick++;
    // Mostly movement keys, sometimes fire or jump.
    uint16_t buttons = static_cast<uint16_t>(1u << rng.below(4));
    if (rng.below(4) == 0) buttons |= static_cast<uint16_t>(game::InputButtons::Fire);
    if (rng.below(8) == 0) buttons |= static_cast<uint16_t>(game::InputButtons::Jump);
    input.buttons = static_cast<game::InputButtons>(buttons);
    input.yaw = uniform(rng, -180.0, 180.0);
    input.pitch = uniform(rng, -60.0, 60.0);
    input.has_switch_to = rng.below(16) == 0;
    input.switch_to = input.has_switch_to ? static_cast<game::Weapon>(rng.below(5)) : game::Weapon{};
    snap_to_wire(input);
  }
  return inputs;
}

// 64 entities: 16 players (a quarter standing still), 28 projectiles, 12 pickups (always at rest) and 8
// vehicles (half parked), spread over a 2 km square at ground level, in a shuffled order. Each variant
// (0, 1, ...) is another draw of the same mix.
inline game::Snapshot snapshot(uint64_t variant) {
  bitwire::Random rng(0x5a4a'0064 + variant);
  game::Snapshot snapshot;
  snapshot.tick = static_cast<uint32_t>(180'000 + variant);
  snapshot.last_input_tick = static_cast<uint32_t>(179'996 + variant);
  std::array<game::EntityKind, 64> kinds{};
  for (size_t i = 0; i < kinds.size(); ++i) {
    kinds[i] = i < 16   ? game::EntityKind::Player
               : i < 44 ? game::EntityKind::Projectile
               : i < 56 ? game::EntityKind::Pickup
                        : game::EntityKind::Vehicle;
  }
  for (size_t i = kinds.size() - 1; i > 0; --i) std::swap(kinds[i], kinds[rng.below(i + 1)]);

  for (size_t i = 0; i < kinds.size(); ++i) {
    game::EntityState e;
    e.id = static_cast<uint8_t>(i);
    e.kind = kinds[i];
    e.position = {uniform(rng, -1000, 1000), uniform(rng, 0, 120), uniform(rng, -1000, 1000)};
    e.orientation = random_orientation(rng);
    double speed = 0;
    switch (e.kind) {
      case game::EntityKind::Player:
        e.at_rest = rng.below(4) == 0;
        speed = 8;
        e.health = static_cast<int8_t>(1 + rng.below(100));
        e.weapon = static_cast<game::Weapon>(rng.below(5));
        e.clips = static_cast<uint8_t>(rng.below(8));
        break;
      case game::EntityKind::Projectile:
        e.at_rest = false;
        speed = 31;
        break;
      case game::EntityKind::Pickup:
        e.at_rest = true;
        break;
      case game::EntityKind::Vehicle:
        e.at_rest = rng.below(2) == 0;
        speed = 20;
        e.fuel = static_cast<int8_t>(rng.below(101));
        e.occupants = static_cast<uint8_t>(rng.below(4));
        break;
    }
    if (!e.at_rest)
      e.velocity = {uniform(rng, -speed, speed), uniform(rng, -2, 2), uniform(rng, -speed, speed)};
    snapshot.entities.push_back(e);
  }
  snap_to_wire(snapshot);
  return snapshot;
}

inline constexpr size_t kSnapshotVariants = 8;

inline std::vector<game::Snapshot> snapshots() {
  std::vector<game::Snapshot> all;
  for (size_t i = 0; i < kSnapshotVariants; ++i) all.push_back(snapshot(i));
  return all;
}

inline ship::ShipState ship_state(bitwire::Random& rng, uint16_t sequence) {
  ship::ShipState s;
  s.sequence = sequence;
  s.ship_id = static_cast<uint16_t>(rng.below(1024));
  s.px = uniform(rng, -8000, 8000);
  s.py = uniform(rng, -8000, 8000);
  s.pz = uniform(rng, -8000, 8000);
  s.vx = uniform(rng, -250, 250);
  s.vy = uniform(rng, -250, 250);
  s.vz = uniform(rng, -250, 250);
  double q[4];
  double norm = 0;
  for (double& c : q) {
    c = rng.uniform(-1.0, 1.0);
    norm += c * c;
  }
  norm = std::sqrt(norm) + 1e-9;
  s.qx = static_cast<float>(q[0] / norm);
  s.qy = static_cast<float>(q[1] / norm);
  s.qz = static_cast<float>(q[2] / norm);
  s.qw = static_cast<float>(q[3] / norm);
  s.spin = uniform(rng, -8, 8);
  s.hull_points = static_cast<int16_t>(rng.below(1001));
  s.shield = static_cast<int16_t>(rng.below(501));
  s.team = static_cast<uint8_t>(rng.below(4));
  s.thrusting = rng.below(2) == 0;
  s.firing = rng.below(4) == 0;
  s.cloaked = rng.below(16) == 0;
  return s;
}

inline std::vector<ship::ShipState> ship_states() {
  bitwire::Random rng(0x5b1b'0028);
  std::vector<ship::ShipState> states(kVariants);
  for (size_t i = 0; i < states.size(); ++i) {
    states[i] = ship_state(rng, static_cast<uint16_t>(1000 + i));
    snap_to_wire(states[i]);
  }
  return states;
}

inline ship::Weapons weapons(bitwire::Random& rng) {
  ship::Weapons w;
  w.primary_ammo = static_cast<uint8_t>(rng.below(256));
  w.secondary_ammo = static_cast<uint8_t>(rng.below(32));
  w.cooldown = uniform(rng, 0, 10);
  w.overheated = rng.below(8) == 0;
  return w;
}

inline std::vector<ship::FleetPacket> fleet_packets() {
  bitwire::Random rng(0xf1ee'0204);
  std::vector<ship::FleetPacket> packets(kVariants);
  for (size_t i = 0; i < packets.size(); ++i) {
    ship::FleetPacket& p = packets[i];
    p.protocol_version = 7;
    p.sequence = static_cast<uint16_t>(5000 + i);
    p.ack = static_cast<uint16_t>(4990 + i);
    p.ack_bits = static_cast<uint32_t>(rng.next());
    p.server_tick = static_cast<uint32_t>(900'000 + i);
    p.client_tick = static_cast<uint32_t>(899'990 + i);
    p.session_id = rng.next();
    p.match_id = rng.next();
    p.server_time = 1234.5 + static_cast<double>(i) / 60.0;
    p.round_time = rng.uniform(0, 600);
    p.time_scale = 1.0;
    p.ping_ms = static_cast<uint16_t>(20 + rng.below(200));
    p.loss_permille = static_cast<uint16_t>(rng.below(50));
    p.clock_drift_us = static_cast<int32_t>(rng.range(-5000, 5000));
    p.ship = ship_state(rng, p.sequence);
    p.port = weapons(rng);
    p.starboard = weapons(rng);
    p.target_id = static_cast<uint16_t>(rng.below(1024));
    p.target_hull = static_cast<ship::Hull>(rng.below(4));
    p.target_x = uniform(rng, -8000, 8000);
    p.target_y = uniform(rng, -8000, 8000);
    p.target_z = uniform(rng, -8000, 8000);
    p.target_distance = uniform(rng, 0, 20000);
    p.aim_yaw = uniform(rng, -180, 180);
    p.aim_pitch = uniform(rng, -90, 90);
    p.locked = rng.below(2) == 0;
    p.in_range = rng.below(2) == 0;
    p.lock_progress = uniform(rng, 0, 1);
    p.missiles_tracking = static_cast<uint8_t>(rng.below(8));
    p.wingmen_alive = static_cast<uint8_t>(rng.below(64));
    p.enemies_alive = static_cast<uint8_t>(rng.below(64));
    p.score = static_cast<int32_t>(rng.below(100'001));
    p.kills = static_cast<int16_t>(rng.below(1001));
    p.deaths = static_cast<int16_t>(rng.below(1001));
    p.assists = static_cast<int16_t>(rng.below(1001));
    p.credits = rng.below(1'000'000'000);
    p.fuel = static_cast<uint8_t>(rng.below(101));
    p.hull_integrity = static_cast<uint8_t>(rng.below(101));
    p.engine_health = static_cast<uint8_t>(rng.below(101));
    p.sensor_health = static_cast<uint8_t>(rng.below(101));
    p.hull = static_cast<ship::Hull>(rng.below(4));
    p.boosting = rng.below(2) == 0;
    p.docking = rng.below(16) == 0;
    p.docked = false;
    p.warping = rng.below(32) == 0;
    p.autopilot = rng.below(4) == 0;
    p.lights = true;
    p.power_engines = uniform(rng, 0, 100);
    p.power_shields = uniform(rng, 0, 100);
    p.power_weapons = uniform(rng, 0, 100);
    p.wind_x = rng.uniform(-5, 5);
    p.wind_y = rng.uniform(-5, 5);
    p.wind_z = rng.uniform(-5, 5);
    p.nebula_density = uniform(rng, -1, 1);
    p.radiation = uniform(rng, 0, 1);
    p.temperature = uniform(rng, 0, 1000);
    p.weather = static_cast<uint8_t>(rng.below(16));
    p.zone_id = static_cast<uint16_t>(rng.below(65536));
    p.zone_seed = rng.next();
    p.world_seed = rng.next();
    p.objective_mask = rng.next();
    p.objective_progress = static_cast<uint32_t>(rng.next());
    p.sudden_death = false;
    p.overtime = rng.below(8) == 0;
    snap_to_wire(p);
  }
  return packets;
}

}  // namespace bench_values
